// Bedrock embeddings over InvokeModel: the model id decides the native body. Titan embeds one text
// per call, Cohere up to 96 per call, so a request fans out into several InvokeModel calls.
import type { EmbeddingRequest, EmbeddingResponse, JsonObject } from '../../ir/types.ts';
import { asArray, asNumber, asRecord } from '../../util/json.ts';
import { estimateEmbeddingTokens } from '../shared/estimate-tokens.ts';

export type EmbeddingFamily = 'titan-v1' | 'titan-v2' | 'cohere-v3' | 'cohere-v4';

const TITAN_V2_DIMENSIONS = new Set([256, 512, 1024]);
const COHERE_V4_DIMENSIONS = new Set([256, 512, 1024, 1536]);
/** Cohere's per-call limit on `texts`. */
export const COHERE_BATCH = 96;

export function embeddingFamily(model: string): EmbeddingFamily {
  if (/amazon\.titan-embed-text-v2/.test(model)) return 'titan-v2';
  if (/amazon\.titan-embed/.test(model)) return 'titan-v1';
  if (/cohere\.embed-v4/.test(model)) return 'cohere-v4';
  if (/cohere\.embed/.test(model)) return 'cohere-v3';
  throw new Error(`unsupported bedrock embedding model: ${model}`);
}

export function bedrockSupportsDimensions(model: string): boolean {
  const family = /amazon\.titan-embed|cohere\.embed/.test(model) ? embeddingFamily(model) : undefined;
  return family === 'titan-v2' || family === 'cohere-v4';
}

/** Sizes outside a model's allowed set would be a ValidationException; they are dropped instead. */
function allowedDimensions(family: EmbeddingFamily, dims: number | undefined): number | undefined {
  if (dims === undefined) return undefined;
  if (family === 'titan-v2') return TITAN_V2_DIMENSIONS.has(dims) ? dims : undefined;
  if (family === 'cohere-v4') return COHERE_V4_DIMENSIONS.has(dims) ? dims : undefined;
  return undefined;
}

/** One InvokeModel body per call, in input order. */
export function embeddingBodies(req: EmbeddingRequest, model: string): JsonObject[] {
  const family = embeddingFamily(model);
  const dims = allowedDimensions(family, req.dimensions);
  if (family === 'titan-v1') return req.input.map((inputText) => ({ inputText }));
  if (family === 'titan-v2') {
    return req.input.map((inputText) => {
      const body: JsonObject = { inputText, normalize: true };
      if (dims !== undefined) body.dimensions = dims;
      return body;
    });
  }
  const bodies: JsonObject[] = [];
  for (let i = 0; i < req.input.length; i += COHERE_BATCH) {
    const body: JsonObject = { texts: req.input.slice(i, i + COHERE_BATCH), input_type: 'search_document' };
    if (family === 'cohere-v4') {
      body.embedding_types = ['float'];
      if (dims !== undefined) body.output_dimension = dims;
    }
    bodies.push(body);
  }
  return bodies;
}

function floats(v: unknown): number[] {
  return asArray(v).map((x) => asNumber(x) ?? 0);
}

/** Vectors and token count of one InvokeModel answer (Titan: one vector; Cohere: a batch). */
function decodeOne(body: unknown, family: EmbeddingFamily): { vectors: number[][]; tokens?: number } {
  const b = asRecord(body);
  if (family === 'titan-v1' || family === 'titan-v2') {
    return { vectors: [floats(b.embedding)], tokens: asNumber(b.inputTextTokenCount) };
  }
  // `embeddings` is a plain list of vectors, or `{float: [...]}` when embedding types were requested.
  const list = Array.isArray(b.embeddings) ? b.embeddings : asRecord(b.embeddings).float;
  return { vectors: asArray(list).map(floats) };
}

/** Titan answers carry a token count; Cohere reports none, so its usage is estimated. */
export function decodeEmbeddingBodies(bodies: unknown[], req: EmbeddingRequest, model: string): EmbeddingResponse {
  const family = embeddingFamily(model);
  const vectors: number[][] = [];
  let tokens = 0;
  let counted = true;
  for (const body of bodies) {
    const one = decodeOne(body, family);
    vectors.push(...one.vectors);
    if (one.tokens === undefined) counted = false;
    else tokens += one.tokens;
  }
  return {
    model,
    vectors,
    usage: { input: counted && bodies.length > 0 ? tokens : estimateEmbeddingTokens(req.input) },
  };
}

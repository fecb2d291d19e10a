// InvokeModel bodies of the Titan and Cohere embedding models.
import { randomUUID } from 'node:crypto';
import { isObj, isStr, type Json } from '../anthropic/util.ts';
import { countTokens, embedText, parseScript } from '../script.ts';

export type EmbedOutcome = { ok: true; body: Json; inputTokens: number } | { ok: false; message: string };

const TITAN_V2_DIMS = [256, 512, 1024];
const COHERE_INPUT_TYPES = ['search_document', 'search_query', 'classification', 'clustering'];
const COHERE_DIMS = 1024;
const COHERE_MAX_TEXTS = 96;

export function titanEmbed(modelId: string, body: unknown): EmbedOutcome {
  if (!isObj(body) || !isStr(body.inputText) || body.inputText.length === 0)
    return {
      ok: false,
      message:
        'Malformed input request: #: required key [inputText] not found, please reformat your input and try again.',
    };
  const v2 = modelId.includes('titan-embed-text-v2');
  const dims = body.dimensions;
  if (dims !== undefined && (!v2 || !TITAN_V2_DIMS.includes(Number(dims))))
    return {
      ok: false,
      message: `Malformed input request: #/dimensions: ${String(dims)} is not a valid enum value (256, 512, 1024).`,
    };
  const forced = parseScript(modelId).dims;
  const n = forced ?? (v2 ? Number(dims ?? 1024) : 1536);
  let vec = embedText(body.inputText, n);
  // Titan scales unnormalised vectors; keep them distinguishable so callers can tell the flag arrived.
  if (body.normalize === false) vec = vec.map((x) => Math.round(x * 4 * 1e6) / 1e6);
  const inputTokens = countTokens(body.inputText);
  const types = Array.isArray(body.embeddingTypes) ? body.embeddingTypes : undefined;
  return {
    ok: true,
    inputTokens,
    body: {
      embedding: vec,
      inputTextTokenCount: inputTokens,
      ...(types
        ? {
            embeddingsByType: {
              float: vec,
              ...(types.includes('binary') ? { binary: vec.map((x) => (x > 0 ? 1 : 0)) } : {}),
            },
          }
        : {}),
    },
  };
}

export function cohereEmbed(modelId: string, body: unknown): EmbedOutcome {
  if (!isObj(body) || !Array.isArray(body.texts) || body.texts.length === 0 || !body.texts.every(isStr))
    return {
      ok: false,
      message:
        'Malformed input request: #: required key [texts] not found or empty, please reformat your input and try again.',
    };
  if (body.texts.length > COHERE_MAX_TEXTS)
    return {
      ok: false,
      message: `Malformed input request: #/texts: expected maximum item count: ${COHERE_MAX_TEXTS}, found: ${body.texts.length}`,
    };
  if (!isStr(body.input_type) || !COHERE_INPUT_TYPES.includes(body.input_type))
    return {
      ok: false,
      message: `Malformed input request: #/input_type: must be one of ${COHERE_INPUT_TYPES.join(', ')}`,
    };
  const n = parseScript(modelId).dims ?? COHERE_DIMS;
  const texts = body.texts as string[];
  const floats = texts.map((t) => embedText(t, n));
  const inputTokens = texts.reduce((s, t) => s + countTokens(t), 0);
  const types = Array.isArray(body.embedding_types) ? body.embedding_types.filter(isStr) : undefined;
  if (!types)
    return {
      ok: true,
      inputTokens,
      body: { embeddings: floats, id: randomUUID(), response_type: 'embeddings_floats', texts },
    };
  const byType: Json = {};
  for (const t of types) {
    if (t === 'float') byType.float = floats;
    else if (t === 'int8') byType.int8 = floats.map((v) => v.map((x) => Math.round(x * 127)));
    else if (t === 'uint8') byType.uint8 = floats.map((v) => v.map((x) => Math.round((x + 1) * 127.5)));
    else return { ok: false, message: `Malformed input request: #/embedding_types: unsupported type ${t}` };
  }
  return {
    ok: true,
    inputTokens,
    body: { embeddings: byType, id: randomUUID(), response_type: 'embeddings_by_type', texts },
  };
}

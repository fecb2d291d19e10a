// Embeddings on the OpenAI wire: always ask for floats so no host needs base64 support.
import type { EmbeddingRequest, EmbeddingResponse, JsonObject } from '../../ir/types.ts';
import { asArray, asNumber, asRecord, asString } from '../../util/json.ts';

export type OpenAIVendor = 'openai' | 'azure-openai' | 'together' | 'fireworks';

/**
 * Only OpenAI's text-embedding-3 family is known to honour `dimensions`; together/fireworks hosts are
 * not known to, so their vectors keep the model's native size (SPEC: strip `dimensions` then).
 */
export function supportsDimensions(vendor: OpenAIVendor, model: string): boolean {
  if (vendor !== 'openai' && vendor !== 'azure-openai') return false;
  return /(^|\/)text-embedding-3/.test(model);
}

export function toEmbeddingBody(vendor: OpenAIVendor, req: EmbeddingRequest): JsonObject {
  const body: JsonObject = { model: req.model, input: req.input, encoding_format: 'float' };
  if (req.dimensions !== undefined && supportsDimensions(vendor, req.model)) body.dimensions = req.dimensions;
  if (req.user !== undefined) body.user = req.user;
  return body;
}

export function fromEmbeddingResponse(body: unknown, req: EmbeddingRequest): EmbeddingResponse {
  const b = asRecord(body);
  const rows = asArray(b.data).map((d, pos) => ({
    index: asNumber(asRecord(d).index) ?? pos,
    vector: vectorOf(asRecord(d).embedding),
  }));
  rows.sort((x, y) => x.index - y.index);
  const usage = asRecord(b.usage);
  return {
    model: asString(b.model) ?? req.model,
    vectors: rows.map((r) => r.vector),
    usage: { input: asNumber(usage.prompt_tokens) ?? asNumber(usage.total_tokens) ?? 0 },
  };
}

/** Floats as asked; a host that ignores `encoding_format` may still answer base64 float32 LE. */
function vectorOf(raw: unknown): number[] {
  if (Array.isArray(raw)) {
    // Float answers are already number arrays: keep them rather than copy 1,536 numbers per vector.
    for (const x of raw) if (typeof x !== 'number') return raw.map((y) => (typeof y === 'number' ? y : Number(y)));
    return raw as number[];
  }
  if (typeof raw !== 'string') return [];
  const bytes = Buffer.from(raw, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = [];
  for (let i = 0; i + 4 <= bytes.byteLength; i += 4) out.push(view.getFloat32(i, true));
  return out;
}

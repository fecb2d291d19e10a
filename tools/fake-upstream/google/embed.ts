// :embedContent and :batchEmbedContents, with outputDimensionality truncating the native vector.
import { isObj, isStr } from '../anthropic/util.ts';
import { embedText, parseScript } from '../script.ts';

export type EmbedResult = { ok: true; values: number[] } | { ok: false; message: string };

const MAX_BATCH = 100;

function nativeDims(model: string): number {
  return model.includes('gemini-embedding') ? 3072 : 768;
}

/** One EmbedContentRequest (also an element of batchEmbedContents' `requests`). */
export function embedOne(model: string, body: unknown, at = 'EmbedContentRequest'): EmbedResult {
  if (!isObj(body) || !isObj(body.content) || !Array.isArray(body.content.parts) || body.content.parts.length === 0)
    return { ok: false, message: `* ${at}.content: content is not specified` };
  const texts: string[] = [];
  for (const p of body.content.parts) {
    if (!isObj(p) || !isStr(p.text))
      return { ok: false, message: `* ${at}.content.parts: only text parts can be embedded` };
    texts.push(p.text);
  }
  const text = texts.join(' ');
  const forced = parseScript(model).dims;
  if (forced !== undefined) return { ok: true, values: embedText(text, forced) };
  const native = nativeDims(model);
  const dims = body.outputDimensionality;
  if (dims !== undefined && (typeof dims !== 'number' || !Number.isInteger(dims) || dims < 1 || dims > native))
    return { ok: false, message: `* ${at}.output_dimensionality: must be between 1 and ${native}` };
  const full = embedText(text, native);
  return { ok: true, values: dims === undefined ? full : full.slice(0, dims) };
}

export function embedBatch(
  model: string,
  body: unknown,
): { ok: true; all: number[][] } | { ok: false; message: string } {
  if (!isObj(body) || !Array.isArray(body.requests) || body.requests.length === 0)
    return { ok: false, message: '* BatchEmbedContentsRequest.requests: requests is not specified' };
  if (body.requests.length > MAX_BATCH)
    return {
      ok: false,
      message: `* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch`,
    };
  const all: number[][] = [];
  for (let i = 0; i < body.requests.length; i++) {
    const r = body.requests[i];
    if (isObj(r) && r.model !== undefined && r.model !== `models/${model}`)
      return {
        ok: false,
        message: `* BatchEmbedContentsRequest.requests[${i}].model: model '${String(r.model)}' differs from the model in the URL (models/${model})`,
      };
    const one = embedOne(model, r, `BatchEmbedContentsRequest.requests[${i}]`);
    if (!one.ok) return one;
    all.push(one.values);
  }
  return { ok: true, all };
}

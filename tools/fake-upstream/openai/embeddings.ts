// POST /embeddings: deterministic vectors, `dimensions` only for text-embedding-3-*, float or base64.
import { countTokens, embedText, parseScript, sleep } from '../script.ts';
import { commonHeaders, type OaiVendor, type Route } from './env.ts';
import { invalid, type OaiError, scriptedFailure, sendError } from './errors.ts';
import { isRecord, type Json, num, str } from './util.ts';

/** Native sizes of the models we know; anything else gets the vendor default. */
const SIZES: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'togethercomputer/m2-bert-80M-8k-retrieval': 768,
  'BAAI/bge-large-en-v1.5': 1024,
  'BAAI/bge-base-en-v1.5': 768,
  'nomic-ai/nomic-embed-text-v1.5': 768,
  'WhereIsAI/UAE-Large-V1': 1024,
};

export function nativeSize(model: string, vendor: OaiVendor): number {
  const bare = model.startsWith('accounts/fireworks/models/')
    ? model.slice('accounts/fireworks/models/'.length)
    : model;
  for (const [k, v] of Object.entries(SIZES)) if (bare.startsWith(k)) return v;
  if (bare.includes('text-embedding-3-large')) return 3072;
  return vendor === 'openai' || vendor === 'azure' ? 1536 : 768;
}

type Inputs = string[] | number[][];

function readInputs(input: unknown): Inputs | OaiError {
  const bad = invalid(
    "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
    'input',
  );
  if (typeof input === 'string') return input === '' ? bad : [input];
  if (!Array.isArray(input) || input.length === 0) return bad;
  if (input.every((x) => typeof x === 'string')) return input.some((x) => x === '') ? bad : input;
  if (input.every((x) => typeof x === 'number')) return [input];
  if (input.every((x) => Array.isArray(x) && x.length > 0 && x.every((y) => typeof y === 'number'))) return input;
  return bad;
}

export interface EmbeddingOutcome {
  status: number;
  body: Json;
}

/** Pure embeddings computation, shared with the batch executor. */
export function computeEmbeddings(body: unknown, vendor: OaiVendor): EmbeddingOutcome | OaiError {
  if (!isRecord(body)) return invalid('We could not parse the JSON body of your request.');
  const model = str(body.model);
  if (model === undefined || model === '') return invalid('you must provide a model parameter');
  if (body.input === undefined)
    return invalid("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  const inputs = readInputs(body.input);
  if (!Array.isArray(inputs)) return inputs;
  const script = parseScript(model);
  const native = nativeSize(model, vendor);
  let size = native;
  if (body.dimensions !== undefined && body.dimensions !== null) {
    const d = num(body.dimensions);
    if (!model.includes('text-embedding-3'))
      return invalid('This model does not support specifying dimensions.', 'dimensions');
    if (d === undefined || !Number.isInteger(d) || d < 1 || d > native)
      return invalid(
        `Invalid 'dimensions': expected an integer between 1 and ${native}.`,
        'dimensions',
        'invalid_value',
      );
    size = d;
  }
  if (script.dims !== undefined) size = script.dims;
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64')
    return invalid(
      `Invalid value: '${String(format)}'. Supported values are: 'float' and 'base64'.`,
      'encoding_format',
      'invalid_value',
    );
  let tokens = 0;
  const data = inputs.map((item, index) => {
    const text = typeof item === 'string' ? item : item.join(' ');
    tokens += typeof item === 'string' ? countTokens(item) : item.length;
    const vec = truncate(embedText(text, Math.max(native, size)), size);
    return { object: 'embedding', index, embedding: format === 'base64' ? toBase64(vec) : vec };
  });
  return { status: 200, body: { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } } };
}

/** Shortened embeddings are re-normalised, as the real `dimensions` parameter does. */
function truncate(v: number[], n: number): number[] {
  if (v.length === n) return v;
  const out = v.slice(0, n);
  let norm = 0;
  for (const x of out) norm += x * x;
  const s = 1 / Math.sqrt(norm || 1);
  for (let i = 0; i < n; i++) out[i] = Math.round(out[i] * s * 1e6) / 1e6;
  return out;
}

/** Little-endian float32 bytes, base64: what the SDK decodes with a Float32Array. */
export function toBase64(v: number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i], i * 4);
  return buf.toString('base64');
}

export const handleEmbeddings: Route = async (ctx, env) => {
  const body = await ctx.json();
  if (env.model !== undefined && isRecord(body)) body.model = env.model;
  const out = computeEmbeddings(body, env.vendor);
  if ('message' in out) return sendError(ctx, out);
  const script = parseScript(str((body as Json).model));
  if (script.hang) return;
  if (script.slowMs > 0) await sleep(script.slowMs);
  const fail = scriptedFailure(script);
  if (fail) return sendError(ctx, fail);
  ctx.sendJson(out.status, out.body, commonHeaders());
};

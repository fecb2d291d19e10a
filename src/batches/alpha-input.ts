// The input file of an alpha batch, read line by line as it streams in: each line becomes an item,
// valid ones `pending`, invalid ones settled at once with the reason (they go to the error file).
// Checks: JSON object, custom_id a non-empty string not seen before, method POST, url equal to the
// batch's endpoint, and a body the endpoint's decoder accepts, not streaming. A line nested past the
// JSON depth bound or longer than a request body may be fails the whole batch at once, naming the
// line: such a line is no mistake to report among others but input the gateway will not hold.
import { GatewayError } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import type { ChatRequest, JsonValue } from '../ir/types.ts';
import { decodeEmbeddingBody } from '../pipeline/embed-attempt.ts';
import type { NewItem } from '../store/batches.ts';
import { isRecord, parseBoundedJson } from '../util/json.ts';
import type { ItemEstimate } from './deps.ts';
import { readLines } from './jsonl.ts';
import type { AlphaResult } from './objects.ts';

/** The endpoints an alpha batch may target, with how a line's body is checked (its IR, for chat). */
export const ALPHA_BATCH_ENDPOINTS: Record<string, (body: unknown) => ChatRequest | undefined> = {
  '/v1/chat/completions': (body) => alphaCodec.decode(body).ir,
  '/v1/embeddings': (body) => {
    decodeEmbeddingBody(body);
    return undefined;
  },
};

/** OpenAI's own cap on requests per batch. */
export const MAX_BATCH_LINES = 50_000;

export interface AlphaInput {
  items: NewItem[];
  /** The valid lines, as the budget check estimates them. */
  estimates: Omit<ItemEstimate, 'principal'>[];
  /** How many lines were invalid (stored settled, as errors). */
  invalid: number;
  /** The model of the first valid line. */
  model: string | null;
}

export type AlphaInputResult =
  | { ok: true; input: AlphaInput }
  /** `line` (1-based) names the line that failed the whole batch, when one did. */
  | { ok: false; code: string; message: string; line?: number };

function invalidLine(code: string, message: string): AlphaResult {
  return { response: null, error: { code, message } };
}

/** Why a parsed line cannot run, or what it asks for when it can. */
function lineProblem(
  line: Record<string, unknown>,
  endpoint: string,
  seen: Set<string>,
): AlphaResult | { ir: ChatRequest | undefined } {
  const id = line.custom_id;
  if (seen.has(id as string)) return invalidLine('duplicate_custom_id', `custom_id "${id}" appears more than once`);
  if (line.method !== 'POST') return invalidLine('invalid_method', 'method must be "POST"');
  if (line.url !== endpoint)
    return invalidLine(
      'mismatched_url',
      `url must be the batch's endpoint "${endpoint}", got ${JSON.stringify(line.url)}`,
    );
  const body = line.body;
  if (!isRecord(body)) return invalidLine('invalid_body', 'body must be a JSON object');
  if (body.stream === true) return invalidLine('invalid_body', 'stream is not supported inside a batch');
  try {
    return { ir: ALPHA_BATCH_ENDPOINTS[endpoint]?.(body) };
  } catch (err) {
    if (err instanceof GatewayError) return invalidLine('invalid_body', err.message);
    throw err;
  }
}

/** Thrown when the caller's `cancelled` says to stop reading. */
export class InputCancelled extends Error {
  constructor() {
    super('reading the batch input was cancelled');
    this.name = 'InputCancelled';
  }
}

/** `cancelled` is asked at each line (and may answer from a cache): true stops with InputCancelled. */
export async function parseAlphaInput(
  content: AsyncIterable<Uint8Array>,
  endpoint: string,
  maxLineBytes: number,
  cancelled: () => Promise<boolean> = async () => false,
): Promise<AlphaInputResult> {
  const lines = readLines(content, maxLineBytes);
  const items: NewItem[] = [];
  const estimates: AlphaInput['estimates'] = [];
  const seen = new Set<string>();
  let invalid = 0;
  let model: string | null = null;
  let lineNo = 0;
  for await (const line of lines) {
    if (await cancelled()) throw new InputCancelled();
    lineNo++;
    if (line.text === undefined)
      return {
        ok: false,
        code: 'line_too_large',
        message: `line ${lineNo} is ${line.bytes} bytes; a request line may be at most ${maxLineBytes}`,
        line: lineNo,
      };
    if (line.text.trim() === '') continue;
    if (items.length >= MAX_BATCH_LINES)
      return { ok: false, code: 'too_many_requests', message: `a batch holds at most ${MAX_BATCH_LINES} requests` };
    const read = parseBoundedJson(line.text);
    if (!read.ok && read.reason === 'too_deep')
      return { ok: false, code: 'line_too_deep', message: `line ${lineNo} ${read.message}`, line: lineNo };
    const parsed = read.ok ? read.value : undefined;
    const idx = items.length;
    if (!isRecord(parsed) || typeof parsed.custom_id !== 'string' || parsed.custom_id === '') {
      invalid++;
      const customId = isRecord(parsed) && typeof parsed.custom_id === 'string' ? parsed.custom_id : `line-${lineNo}`;
      const why = isRecord(parsed)
        ? invalidLine('invalid_custom_id', 'custom_id must be a non-empty string')
        : invalidLine('invalid_json', `line ${lineNo} is not a JSON object`);
      items.push({ idx, customId, request: null, state: 'errored', result: why as unknown as JsonValue });
      continue;
    }
    const checked = lineProblem(parsed, endpoint, seen);
    seen.add(parsed.custom_id);
    if (!('ir' in checked)) {
      invalid++;
      items.push({
        idx,
        customId: parsed.custom_id,
        request: null,
        state: 'errored',
        result: checked as unknown as JsonValue,
      });
      continue;
    }
    const body = parsed.body as Record<string, JsonValue>;
    if (model === null && typeof body.model === 'string') model = body.model;
    items.push({ idx, customId: parsed.custom_id, request: body });
    estimates.push({
      kind: checked.ir === undefined ? 'embeddings' : 'chat',
      body,
      modelRequested: String(body.model),
      ...(checked.ir === undefined ? {} : { chat: { ir: checked.ir } }),
    });
  }
  if (items.length === 0) return { ok: false, code: 'empty_file', message: 'the input file has no requests' };
  return { ok: true, input: { items, estimates, invalid, model } };
}

// One batch item through the gateway's own pipeline, as the caller who created the batch: routing,
// fallbacks, budgets and rate limits apply as to any call. The item is not logged on its own (the
// batch is, once, with the items' summed cost): its record comes back through `batchItem`.
import { alphaCodec } from '../families/alpha/codec.ts';
import { betaCodec } from '../families/beta/codec.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { JsonObject, JsonValue } from '../ir/types.ts';
import type { Principal } from '../live/principals.ts';
import { runChat } from '../pipeline/chat.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { runEmbedding } from '../pipeline/embeddings.ts';
import type { CallRecord } from '../pipeline/types.ts';
import type { TraceLink } from '../ports/trace-links.ts';
import type { BatchFamily, ItemOutcome } from '../store/batches.ts';
import { newId } from '../util/ids.ts';
import { asJson, isRecord, parseBoundedJson } from '../util/json.ts';
import type { AlphaResult } from './objects.ts';

export interface ItemRun {
  family: BatchFamily;
  /** Alpha: the batch's endpoint. */
  endpoint: string | null;
  batchId: string;
  /** The batch's create call, which the item's own trace links to. */
  traceLink: TraceLink;
  principal: Principal;
  request: JsonValue;
  signal: CallSignal;
}

export interface ItemRunOutcome extends ItemOutcome {
  /** A refusal worth another try later: rate limited, overloaded, or an upstream failure. */
  retryable: boolean;
}

const RETRYABLE = new Set([408, 429, 500, 502, 503, 504, 529]);

/** An upstream body as JSON when it is within the bounds of JSON from outside; else its text. */
function parseBody(body: unknown): JsonValue {
  if (typeof body !== 'string') return body as JsonValue;
  const parsed = parseBoundedJson(body);
  return parsed.ok ? asJson(parsed.value) : body;
}

/** The error object inside either family's error body: `{error: {type, message, code?}}`. */
function errorOf(body: JsonValue): { type: string; message: string; code: string } {
  const e = isRecord(body) && isRecord(body.error) ? body.error : {};
  const type = typeof e.type === 'string' ? e.type : 'api_error';
  const message = typeof e.message === 'string' ? e.message : 'the request failed';
  const code = typeof e.code === 'string' ? e.code : type;
  return { type, message, code };
}

export async function runItem(deps: PipelineDeps, run: ItemRun): Promise<ItemRunOutcome> {
  let record: CallRecord | undefined;
  const requestId = newId('req');
  const body = { ...(run.request as JsonObject), stream: false };
  const input = {
    codec: run.family === 'alpha' ? alphaCodec : betaCodec,
    principal: run.principal,
    requestId,
    body,
    headers: { 'x-svc-trace-id': run.batchId },
    signal: run.signal,
    batchItem: {
      batchId: run.batchId,
      traceLink: run.traceLink,
      onRecord: (r: CallRecord) => {
        record = r;
      },
    },
  };
  const reply =
    run.family === 'alpha' && run.endpoint === '/v1/embeddings'
      ? await runEmbedding(input, deps)
      : await runChat(input, deps);
  if (reply.kind !== 'json') {
    // Items are sent with stream: false; a stream here would be a pipeline bug, not the caller's.
    throw new Error('a batch item was answered with a stream');
  }
  reply.done();
  const answer = parseBody(reply.body);
  const ok = reply.status === 200;
  const usage = {
    model: record?.modelUsed ?? null,
    inputTokens: record?.usage.input ?? 0,
    outputTokens: record?.usage.output ?? 0,
    costUsd: record?.costUsd ?? 0,
  };
  if (run.family === 'alpha') {
    const result: AlphaResult = {
      response: { status_code: reply.status, request_id: requestId, body: answer },
      error: ok ? null : { code: errorOf(answer).code, message: errorOf(answer).message },
    };
    return {
      state: ok ? 'succeeded' : 'errored',
      result: result as unknown as JsonValue,
      ...usage,
      retryable: !ok && RETRYABLE.has(reply.status),
    };
  }
  const e = errorOf(answer);
  return {
    state: ok ? 'succeeded' : 'errored',
    result: ok
      ? { type: 'succeeded', message: answer }
      : { type: 'errored', error: { type: e.type, message: e.message } },
    ...usage,
    retryable: !ok && RETRYABLE.has(reply.status),
  };
}

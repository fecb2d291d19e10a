// What callers see of a batch: the alpha batch object (OpenAI's shape: unix seconds, one timestamp
// per status reached) and the beta message batch (Anthropic's: ISO times, counts by outcome), and
// the result lines of each family built from the stored items.
import type { JsonObject, JsonValue } from '../ir/types.ts';
import type { BatchRecord, ItemRecord } from '../store/batches.ts';

/** Alpha statuses a client stops polling at. */
export const ALPHA_TERMINAL: readonly string[] = ['completed', 'failed', 'expired', 'cancelled'];
export const BETA_TERMINAL: readonly string[] = ['ended'];

const sec = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** `ended_at` under the name of the status the batch ended in. */
function endedAs(b: BatchRecord, status: string): number | null {
  return b.status === status ? sec(b.endedAt) : null;
}

export function alphaBatchObject(b: BatchRecord): JsonObject {
  return {
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    errors: b.errors,
    input_file_id: b.inputFileId,
    completion_window: b.completionWindow,
    status: b.status,
    output_file_id: b.outputFileId,
    error_file_id: b.errorFileId,
    created_at: sec(b.createdAt),
    in_progress_at: sec(b.inProgressAt),
    expires_at: sec(b.expiresAt),
    finalizing_at: sec(b.finalizingAt),
    completed_at: endedAs(b, 'completed'),
    failed_at: endedAs(b, 'failed'),
    expired_at: endedAs(b, 'expired'),
    cancelling_at: sec(b.cancellingAt),
    cancelled_at: endedAs(b, 'cancelled'),
    request_counts: { total: b.total, completed: b.succeeded, failed: b.errored },
    // Tokens of the items answered so far, in OpenAI's shape (detail counts the gateway does not keep).
    usage: {
      input_tokens: b.inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: b.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: b.inputTokens + b.outputTokens,
    },
    metadata: b.metadata,
  };
}

export function betaBatchObject(b: BatchRecord, resultsBase: string): JsonObject {
  const settled = b.succeeded + b.errored + b.canceled + b.expired;
  return {
    id: b.id,
    type: 'message_batch',
    // `finalizing` is the gateway's own step between the last item and the end; beta has no word for it.
    processing_status: b.status === 'finalizing' ? (b.cancellingAt !== null ? 'canceling' : 'in_progress') : b.status,
    request_counts: {
      processing: Math.max(0, b.total - settled),
      succeeded: b.succeeded,
      errored: b.errored,
      canceled: b.canceled,
      expired: b.expired,
    },
    ended_at: iso(b.endedAt),
    created_at: iso(b.createdAt) ?? '',
    expires_at: iso(b.expiresAt) ?? '',
    archived_at: null,
    cancel_initiated_at: iso(b.cancellingAt),
    results_url: b.status === 'ended' ? `${resultsBase}/beta/v1/messages/batches/${b.id}/results` : null,
  };
}

/** An alpha item's stored result: the response, the error, or both (a non-200 answer). */
export interface AlphaResult {
  response: { status_code: number; request_id: string; body: JsonValue } | null;
  error: { code: string; message: string } | null;
}

const NOT_RUN: Record<string, { code: string; message: string }> = {
  canceled: { code: 'batch_cancelled', message: 'The batch was cancelled before this request ran.' },
  expired: { code: 'batch_expired', message: 'The batch expired before this request ran.' },
};

/** Which alpha file an item's line goes to, and the line itself (SPEC: id, custom_id, response / error). */
export function alphaLine(item: ItemRecord): { file: 'output' | 'error'; line: JsonObject } {
  const stored = item.result as AlphaResult | null;
  const error = stored?.error ?? NOT_RUN[item.state] ?? null;
  const line: JsonObject = {
    id: `batch_req_${item.batchId.slice(-20)}_${item.idx}`,
    custom_id: item.customId,
    response: stored?.response ?? null,
    error,
  };
  return { file: item.state === 'succeeded' ? 'output' : 'error', line };
}

/** A beta item's result line: its stored result, or what its end state says when it never ran. */
export function betaLine(item: ItemRecord): JsonObject {
  const result: JsonValue =
    item.state === 'canceled' ? { type: 'canceled' } : item.state === 'expired' ? { type: 'expired' } : item.result;
  return { custom_id: item.customId, result };
}

// The end of a local batch: once no item is left to run, one run (whichever wins the move to
// `finalizing`, which beta batches pass through too, unseen) writes the alpha output and error files
// from the items in index order, then moves the batch to its end state together with its webhook
// event and the mark that its cost is recorded. The batch's one log row (its items' summed cost)
// has an id made from the batch and its finalizing time, so a run that repeats this after a crash
// writes the same row again, which the log store keeps once.
import type { JsonObject } from '../ir/types.ts';
import { type EndpointOutcome, endpointRecord } from '../pipeline/endpoint-record.ts';
import type { DomainEvent, DomainEventType } from '../ports/domain-events.ts';
import { resolveDirectModel } from '../providers/registry.ts';
import type { BatchRecord, ItemRecord } from '../store/batches.ts';
import { holdFile } from '../store/file-blobs.ts';
import { idAt } from '../util/ids.ts';
import type { BatchDeps } from './deps.ts';
import { itemLines } from './jsonl.ts';
import { alphaBatchObject, alphaLine, betaBatchObject } from './objects.ts';

/** The request type of a batch's own log row: the batch as a whole, priced once when it ends. */
export const BATCH_EXECUTION = 'batch_execution';

const EVENT_OF: Record<string, DomainEventType> = {
  completed: 'batch.completed',
  failed: 'batch.failed',
  expired: 'batch.expired',
  cancelled: 'batch.cancelled',
};

/** The end state of a batch that ran to the end of its items. */
function endStatus(b: BatchRecord, now: number): string {
  if (b.family === 'beta') return 'ended';
  if (b.cancellingAt !== null) return 'cancelled';
  // It never started: every line of its input was invalid.
  if (b.inProgressAt === null) return 'failed';
  if (b.expired > 0 || now >= b.expiresAt) return 'expired';
  return 'completed';
}

/** The webhook event of an ended batch (beta: from why it ended). */
export function batchEvent(b: BatchRecord, status: string): DomainEvent {
  const reason =
    status !== 'ended' ? status : b.cancellingAt !== null ? 'cancelled' : b.expired > 0 ? 'expired' : 'completed';
  const object = b.family === 'alpha' ? alphaBatchObject({ ...b, status }) : betaBatchObject({ ...b, status }, '');
  return {
    orgId: b.orgId,
    type: EVENT_OF[reason],
    data: {
      batch_id: b.id,
      family: b.family,
      status,
      request_counts: object.request_counts as JsonObject,
      cost_usd: b.costUsd,
    },
    traceLink: b.traceLink ?? null,
  };
}

/** The alpha result lines of one file, as bytes for the file store. */
async function* lines(deps: BatchDeps, batchId: string, file: 'output' | 'error'): AsyncGenerator<Uint8Array> {
  const lineOf = (item: ItemRecord) => {
    const l = alphaLine(item);
    return l.file === file ? l.line : undefined;
  };
  for await (const text of itemLines(deps.batches, batchId, lineOf)) yield Buffer.from(text);
}

async function writeFiles(deps: BatchDeps, b: BatchRecord): Promise<{ output: string | null; error: string | null }> {
  const meta = (origin: 'batch_output' | 'batch_error') => ({
    orgId: b.orgId,
    projectId: b.projectId,
    purpose: 'batch_output',
    filename: `${b.id}_${origin === 'batch_output' ? 'output' : 'error'}.jsonl`,
    contentType: 'application/jsonl',
    origin,
    createdAt: Date.now(),
    expiresAt: null,
  });
  // Ids made from the batch's: a run that repeats this after a crash finds the file it wrote.
  const held = async (kind: 'output' | 'error') => {
    const id = `file-sy${b.id.slice(b.id.indexOf('_') + 1)}${kind === 'output' ? 'o' : 'e'}`;
    if ((await deps.files.get(b.orgId, id)) !== undefined) return id;
    const origin = kind === 'output' ? 'batch_output' : 'batch_error';
    return (await holdFile(deps.files, deps.blobs, meta(origin), lines(deps, b.id, kind), id)).id;
  };
  const failed = b.errored + b.canceled + b.expired;
  return { output: b.succeeded > 0 ? await held('output') : null, error: failed > 0 ? await held('error') : null };
}

/**
 * The model columns of the batch's row as a direct call of its model fills them: the name as
 * written, the vendor's own model id and the vendor as sent. Analytics group on the model used, so
 * `openai/gpt-4o-mini` in a batch and in a chat call land in one group. A routing config (`@slug`)
 * or an unknown name has no single model used, like a call refused before routing.
 */
export function batchModel(
  model: string | null,
): Required<Pick<EndpointOutcome, 'modelRequested' | 'modelUsed' | 'vendor'>> {
  const direct = model === null ? undefined : resolveDirectModel(model);
  return { modelRequested: model ?? '', modelUsed: direct?.model ?? null, vendor: direct?.vendorAsSent ?? null };
}

/** Logs the batch's row: its items' summed usage and cost, under an id only this batch has. */
export function recordBatchCost(deps: BatchDeps, b: BatchRecord, status: string, at: number): void {
  const principal = { orgId: b.orgId, projectId: b.projectId, keyId: b.keyId, rateLimits: null };
  const call = {
    requestType: BATCH_EXECUTION,
    principal,
    requestId: idAt('req', at, b.id),
    headers: {},
    started: performance.now(),
    createdAt: Date.now(),
  };
  deps.record(
    endpointRecord(call, {
      status: 200,
      ...batchModel(b.model),
      usage: { input: b.inputTokens, output: b.outputTokens },
      costUsd: b.costUsd,
      trace: {
        batch_id: b.id,
        family: b.family,
        mode: b.mode,
        status,
        total: b.total,
        succeeded: b.succeeded,
        errored: b.errored,
        canceled: b.canceled,
        expired: b.expired,
      },
    }),
  );
}

/**
 * Ends the batch if nothing is left to run. Returns whether this call ended it (false when items are
 * still unsettled or another run is ending it).
 */
export async function finalizeIfDone(deps: BatchDeps, batchId: string): Promise<boolean> {
  if ((await deps.batches.unsettled(batchId)) > 0) return false;
  const b = await deps.batches.getById(batchId);
  if (b === undefined) return false;
  if (b.status !== 'finalizing') {
    const moved = await deps.batches.transition(b.id, ['in_progress', 'cancelling', 'canceling'], {
      status: 'finalizing',
      finalizingAt: Date.now(),
    });
    if (!moved) return false;
  }
  return endBatch(deps, b.id);
}

/** From `finalizing` to the end state, once. */
export async function endBatch(deps: BatchDeps, batchId: string): Promise<boolean> {
  const b = await deps.batches.getById(batchId);
  if (b === undefined || b.status !== 'finalizing') return false;
  const now = Date.now();
  const status = endStatus(b, now);
  const files = b.family === 'alpha' ? await writeFiles(deps, b) : { output: null, error: null };
  recordBatchCost(deps, b, status, b.finalizingAt ?? now);
  return deps.batches.transition(
    b.id,
    ['finalizing'],
    { status, endedAt: now, outputFileId: files.output, errorFileId: files.error, costRecordedAt: now },
    [batchEvent(b, status)],
  );
}

/**
 * Ends an alpha batch that never ran: its input could not be used (the reason goes in `errors`,
 * with the input line to blame when there is one). A cancel that came meanwhile ends it the same.
 */
export async function failBatch(
  deps: BatchDeps,
  b: BatchRecord,
  code: string,
  message: string,
  line: number | null = null,
): Promise<boolean> {
  const now = Date.now();
  const errors = { object: 'list', data: [{ code, message, param: null, line }] };
  recordBatchCost(deps, b, 'failed', b.createdAt);
  return deps.batches.transition(
    b.id,
    ['validating', 'cancelling', 'in_progress', 'finalizing'],
    { status: 'failed', endedAt: now, errors, costRecordedAt: now },
    [batchEvent(b, 'failed')],
  );
}

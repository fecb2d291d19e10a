// The local executor, on the jobs runner. An alpha batch starts with a validate job (read the input
// file into items); both families then run as `shards` jobs, each owning the items whose index falls
// in its shard, so several instances share a batch's items while no item is run by two at once (a
// job is held by one instance at a time). Every settled item is persisted with its result before the
// next is claimed: a run that dies leaves only its in-flight items `running`, and the shard's next
// run sends them again (at-least-once toward the vendor, never twice in the results).

import { setTimeout as wait } from 'node:timers/promises';
import { GatewayError } from '../errors/gateway-error.ts';
import type { JsonValue } from '../ir/types.ts';
import { type Job, type JobContext, PermanentFailure } from '../jobs/types.ts';
import type { Principal } from '../live/principals.ts';
import type { BatchRecord, ItemOutcome, ItemRecord } from '../store/batches.ts';
import type { FileRecord } from '../store/files.ts';
import { type AlphaInputResult, InputCancelled, parseAlphaInput } from './alpha-input.ts';
import type { BatchDeps, ItemEstimate } from './deps.ts';
import { endBatch, failBatch, finalizeIfDone } from './finalize.ts';
import { runItem } from './run-item.ts';
import { FairSlots } from './semaphore.ts';

export const VALIDATE_JOB = 'batches.validate';
export const RUN_JOB = 'batches.run';
/** A batch's jobs outlive restarts and kills; their attempts are not what ends a batch. */
export const BATCH_JOB_ATTEMPTS = 1000;
/** Items per shard at least: a small batch is not split. */
const ITEMS_PER_SHARD = 50;
/** How often a running shard looks at its batch again (cancel, expiry) while items are in flight. */
const CHECK_MS = 500;

const CANCELLING = new Set(['cancelling', 'canceling']);

export function shardsFor(total: number, maxShards: number): number {
  return Math.max(1, Math.min(maxShards, Math.ceil(total / ITEMS_PER_SHARD)));
}

export function runJobs(batchId: string, shards: number) {
  return Array.from({ length: shards }, (_, shard) => ({
    kind: RUN_JOB,
    payload: { batch_id: batchId, shard, shards },
    idempotencyKey: `${batchId}:${shard}`,
    maxAttempts: BATCH_JOB_ATTEMPTS,
  }));
}

function payloadOf(job: Job): { batchId: string; shard: number; shards: number } {
  const p = job.payload as { batch_id?: unknown; shard?: unknown; shards?: unknown };
  return {
    batchId: String(p.batch_id),
    shard: typeof p.shard === 'number' ? p.shard : 0,
    shards: typeof p.shards === 'number' ? p.shards : 1,
  };
}

/**
 * Waits `ms`, or less when `signal` aborts; never rejects. The timer drops its abort listener when
 * it fires, so a shard that waits thousands of times on its job's signal leaves none behind.
 */
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  wait(ms, undefined, { signal }).then(
    () => undefined,
    () => undefined,
  );

export class BatchExecutor {
  readonly #deps: BatchDeps;
  readonly #orgSlots = new Map<string, FairSlots>();

  constructor(deps: BatchDeps) {
    this.#deps = deps;
  }

  #slots(orgId: string): FairSlots {
    let s = this.#orgSlots.get(orgId);
    if (s === undefined) {
      s = new FairSlots(this.#deps.settings.orgConcurrency);
      this.#orgSlots.set(orgId, s);
    }
    return s;
  }

  /**
   * Reads an alpha batch's input file into items, then starts its shards. Each step can be repeated
   * by a re-run after a crash: items are added once, and the shards' jobs are enqueued by key. An
   * error that would come back the same on every run fails the batch and ends the job for good.
   */
  readonly validate = async (job: Job, ctx: JobContext): Promise<void> => {
    const { batchId } = payloadOf(job);
    const b = await this.#deps.batches.getById(batchId);
    if (b === undefined || b.inputFileId === null || b.endpoint === null) return;
    try {
      await this.#validate(b, b.inputFileId, b.endpoint, ctx.signal);
    } catch (err) {
      if (!deterministic(err)) throw err;
      this.#deps.logger.error({ err, batch: b.id }, 'a batch failed validation with an error no retry would change');
      await failBatch(this.#deps, b, 'validation_failed', "the gateway could not validate this batch's input");
      throw new PermanentFailure(`batch ${b.id} failed validation: ${errorMessage(err)}`, { cause: err });
    }
  };

  async #validate(b: BatchRecord, fileId: string, endpoint: string, stop: AbortSignal): Promise<void> {
    const deps = this.#deps;
    // Cancelled before any item was stored: nothing to read, nothing to run.
    if (b.status === 'cancelling' && b.total === 0) {
      await endCancelled(deps, b.id);
      return;
    }
    if (b.status === 'validating') {
      const file = await deps.files.get(b.orgId, fileId);
      if (file === undefined) {
        await failBatch(deps, b, 'file_not_found', `input file ${fileId} no longer exists`);
        return;
      }
      let checkedAt = Date.now();
      // Stopping (shutdown, lost lease) ends the read like a cancel; the run then throws to resume.
      const cancelled = async () => {
        if (stop.aborted) return true;
        if (Date.now() - checkedAt < CHECK_MS) return false;
        checkedAt = Date.now();
        return CANCELLING.has((await deps.batches.getById(b.id))?.status ?? 'cancelling');
      };
      const parsed = await readInput(deps, file, endpoint, cancelled);
      if (stop.aborted) throw new Error('batch validation interrupted; it resumes on the next run');
      if (parsed === 'cancelled') {
        await endCancelled(deps, b.id);
        return;
      }
      if (!parsed.ok) {
        await failBatch(deps, b, parsed.code, parsed.message, parsed.line ?? null);
        return;
      }
      const { items, invalid, model, estimates } = parsed.input;
      const principal = await deps.principalOf(b.orgId, b.keyId);
      const refused = principal && (await budgetRefusal(deps, principal, estimates));
      if (refused) {
        await failBatch(deps, b, 'budget_exceeded', refused);
        return;
      }
      await deps.batches.addItems(b.id, items);
      const now = Date.now();
      // Nothing can run: the batch fails, and its error file lists why each line could not.
      if (invalid === items.length)
        await deps.batches.transition(b.id, ['validating', 'cancelling'], {
          model,
          status: 'finalizing',
          finalizingAt: now,
        });
      // A cancel during validation leaves `cancelling`: the shards then cancel every item.
      else if (
        !(await deps.batches.transition(b.id, ['validating'], { model, status: 'in_progress', inProgressAt: now }))
      )
        await deps.batches.transition(b.id, ['cancelling'], { model });
    }
    const now = await deps.batches.getById(b.id);
    if (now === undefined) return;
    if (now.status === 'finalizing') await endBatch(deps, now.id);
    else if (now.status === 'in_progress' || now.status === 'cancelling')
      for (const j of runJobs(now.id, shardsFor(now.total, deps.settings.shards))) await deps.jobs.enqueue(j);
  }

  /** Runs the shard's items until none is left, the batch is cancelled or expires, or the job must stop. */
  readonly run = async (job: Job, ctx: JobContext): Promise<void> => {
    const { batchId, shard, shards } = payloadOf(job);
    const deps = this.#deps;
    const b = await deps.batches.getById(batchId);
    if (b === undefined || b.mode !== 'local') return;
    if (b.status === 'finalizing') {
      await endBatch(deps, b.id);
      return;
    }
    if (!['in_progress', 'cancelling', 'canceling'].includes(b.status)) return;
    await deps.batches.releaseShard(b.id, shard, shards);
    const principal = await deps.principalOf(b.orgId, b.keyId);
    const holder = `${job.id}:${job.attempt}`;
    await this.#work(b, { shard, shards, holder, principal }, ctx.signal);
    // Stopped before the shard was done (shutdown, lost lease): the job runs again and resumes.
    if (ctx.signal.aborted) throw new Error('batch shard interrupted; it resumes on the next run');
    await finalizeIfDone(deps, b.id);
  };

  async #work(
    b: BatchRecord,
    at: { shard: number; shards: number; holder: string; principal: Principal | undefined },
    stop: AbortSignal,
  ): Promise<void> {
    const deps = this.#deps;
    const limit = Math.max(1, Math.ceil(b.concurrency / at.shards));
    const inflight = new Map<number, { abort: AbortController; done: Promise<void> }>();
    let ending: 'canceled' | 'expired' | undefined;
    // A cancel is seen by reading the batch again, at most every CHECK_MS rather than at every
    // settled item; the expiry time never changes.
    let checkedAt = 0;
    while (!stop.aborted) {
      if (Date.now() - checkedAt >= CHECK_MS) {
        const now = await deps.batches.getById(b.id);
        if (now === undefined) break;
        checkedAt = Date.now();
        if (CANCELLING.has(now.status)) ending = 'canceled';
      }
      if (ending === undefined && Date.now() >= b.expiresAt) ending = 'expired';
      if (ending !== undefined) break;
      const free = limit - inflight.size;
      const claimed = free > 0 ? await deps.batches.claim(b.id, at.shard, at.shards, at.holder, free) : [];
      for (const item of claimed) {
        const abort = new AbortController();
        const done = this.#runOne(b, item, at, abort.signal).finally(() => inflight.delete(item.idx));
        inflight.set(item.idx, { abort, done });
      }
      if (inflight.size === 0) break;
      await Promise.race([...[...inflight.values()].map((f) => f.done), sleep(CHECK_MS, stop)]);
    }
    // Cancelled or expired: in-flight items are abandoned and end like the ones never started.
    if (ending !== undefined || stop.aborted) for (const f of inflight.values()) f.abort.abort();
    await Promise.allSettled([...inflight.values()].map((f) => f.done));
    if (ending !== undefined) await deps.batches.settleRemaining(b.id, at.shard, at.shards, ending);
  }

  async #runOne(
    b: BatchRecord,
    item: ItemRecord,
    at: { holder: string; principal: Principal | undefined },
    abandoned: AbortSignal,
  ): Promise<void> {
    const deps = this.#deps;
    if (at.principal === undefined) {
      await deps.batches.settle(b.id, item.idx, at.holder, revoked(b));
      return;
    }
    const slots = this.#slots(b.orgId);
    // Shared fairly between the org's projects (semaphore.ts); an org-wide key's batches count as one.
    const owner = b.projectId ?? '';
    await slots.acquire(owner);
    try {
      if (abandoned.aborted) return;
      const out = await runItem(deps.pipeline(), {
        family: b.family,
        endpoint: b.endpoint,
        batchId: b.id,
        traceLink: b.traceLink ?? null,
        principal: at.principal,
        request: item.request,
        signal: abandoned,
      });
      // Abandoned mid-call (cancel, expiry, shutdown): the shard settles or requeues it.
      if (abandoned.aborted) {
        await deps.batches.requeue(b.id, item.idx, at.holder);
        return;
      }
      if (out.retryable && item.attempts < deps.settings.itemAttempts) {
        slots.release(owner);
        await sleep(deps.settings.retryDelayMs(item.attempts), abandoned);
        await slots.acquire(owner);
        await deps.batches.requeue(b.id, item.idx, at.holder);
        return;
      }
      const { retryable: _, ...outcome } = out;
      await deps.batches.settle(b.id, item.idx, at.holder, outcome);
    } catch (err) {
      deps.logger.error({ err, batch: b.id, item: item.idx }, 'a batch item failed in the gateway');
      await deps.batches.settle(b.id, item.idx, at.holder, internalError(b));
    } finally {
      slots.release(owner);
    }
  }
}

/**
 * The input file's lines as items, or 'cancelled' when the batch was cancelled while they were
 * read; a file that cannot be read fails the batch, as the vendors' do.
 */
async function readInput(
  deps: BatchDeps,
  file: FileRecord,
  endpoint: string,
  cancelled: () => Promise<boolean>,
): Promise<AlphaInputResult | 'cancelled'> {
  try {
    return await parseAlphaInput(await deps.openFile(file), endpoint, deps.settings.maxLineBytes, cancelled);
  } catch (err) {
    if (err instanceof InputCancelled) return 'cancelled';
    deps.logger.warn({ err, file: file.id }, 'a batch input file could not be read');
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, code: 'input_file_unreadable', message: `input file ${file.id} could not be read: ${message}` };
  }
}

/** A batch cancelled before its items were stored ends at once, as cancelled with nothing run. */
async function endCancelled(deps: BatchDeps, batchId: string): Promise<void> {
  await deps.batches.transition(batchId, ['cancelling'], { status: 'finalizing', finalizingAt: Date.now() });
  await endBatch(deps, batchId);
}

/**
 * Errors that the same input brings back on every run: a value the code cannot handle (a stack
 * overflow, a wrong type) or a refusal. Store and network errors are not among them: they pass.
 */
function deterministic(err: unknown): boolean {
  if (err instanceof GatewayError) return err.status < 500;
  return err instanceof RangeError || err instanceof TypeError || err instanceof SyntaxError;
}

const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Why a budget refuses the batch's estimate, or undefined when it fits. */
async function budgetRefusal(
  deps: BatchDeps,
  principal: Principal,
  estimates: readonly Omit<ItemEstimate, 'principal'>[],
): Promise<string | undefined> {
  try {
    await deps.admitBatch(
      principal,
      estimates.map((e) => ({ ...e, principal })),
    );
    return undefined;
  } catch (err) {
    if (err instanceof GatewayError && err.status === 402) return err.message;
    throw err;
  }
}

function failure(b: BatchRecord, code: string, type: string, message: string): ItemOutcome {
  const result: JsonValue =
    b.family === 'alpha' ? { response: null, error: { code, message } } : { type: 'errored', error: { type, message } };
  return { state: 'errored', result };
}

const revoked = (b: BatchRecord) =>
  failure(b, 'invalid_api_key', 'authentication_error', 'the API key that created this batch was revoked');
const internalError = (b: BatchRecord) =>
  failure(b, 'internal_error', 'api_error', 'the gateway failed to run this request');

// The batch endpoints of both families over one store and one executor. A project key sees only its
// project's batches (another project's id is 404, as an unknown one); an org-wide key sees the org's.
import { GatewayError } from '../errors/gateway-error.ts';
import type { JsonObject, JsonValue } from '../ir/types.ts';
import type { JobHandler, RegisterOptions } from '../jobs/types.ts';
import type { Principal } from '../live/principals.ts';
import type { TraceLink } from '../ports/trace-links.ts';
import type { BatchFamily, BatchRecord } from '../store/batches.ts';
import { newId } from '../util/ids.ts';
import { isRecord } from '../util/json.ts';
import { ALPHA_BATCH_ENDPOINTS } from './alpha-input.ts';
import { parseBetaInput } from './beta-input.ts';
import type { BatchDeps } from './deps.ts';
import { BATCH_JOB_ATTEMPTS, BatchExecutor, RUN_JOB, runJobs, shardsFor, VALIDATE_JOB } from './executor.ts';
import { itemLines } from './jsonl.ts';
import { refuseDisallowedFileModels, refuseDisallowedModels } from './model-allow.ts';
import { alphaBatchObject, betaBatchObject, betaLine } from './objects.ts';
import { PassThrough } from './passthrough.ts';

/** How soon an interrupted batch job runs again. */
const RESUME_MS = 1000;
const refuse = (message: string, param: string | null = null) =>
  new GatewayError('invalid_request', { message, param });

export interface Listing {
  data: JsonObject[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

function intParam(raw: unknown, name: string, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw refuse(`${name} must be an integer from ${min} to ${max}`, name);
  return n;
}

function metadataOf(raw: unknown): Record<string, string> | null {
  if (raw === undefined || raw === null) return null;
  if (!isRecord(raw)) throw refuse('metadata must be an object of strings', 'metadata');
  const entries = Object.entries(raw);
  if (entries.length > 16) throw refuse('metadata holds at most 16 keys', 'metadata');
  for (const [k, v] of entries)
    if (typeof v !== 'string' || k.length > 64 || v.length > 512)
      throw refuse('metadata keys are strings of at most 64 characters, values of at most 512', `metadata.${k}`);
  return raw as Record<string, string>;
}

export class Batches {
  readonly executor: BatchExecutor;
  readonly #deps: BatchDeps;
  readonly #passThrough: PassThrough;

  constructor(deps: BatchDeps) {
    this.#deps = deps;
    this.executor = new BatchExecutor(deps);
    this.#passThrough = new PassThrough(deps);
  }

  /** Registers the executor's jobs on `runner` (the queue the batches' jobs go to). */
  start(runner: { register(kind: string, handler: JobHandler, opts?: RegisterOptions): void }): void {
    // A shard stopped by a shutdown or a lost lease resumes a second later, however often that
    // happened before: its attempts count restarts, not failures.
    const opts: RegisterOptions = { retryDelayMs: () => RESUME_MS };
    // A validation that throws has failed (a stopped one is given back, not failed): it backs off,
    // so a store outage does not have it re-read the input file every second.
    runner.register(VALIDATE_JOB, this.executor.validate);
    runner.register(RUN_JOB, this.executor.run, opts);
  }

  /**
   * Pass-through batches not yet seen ended, refreshed from their vendor: their end, cost and
   * webhook event come even when nobody asks for them.
   */
  async pollUpstream(): Promise<void> {
    const rows = await this.#deps.batches.listByStatus(
      'passthrough',
      ['validating', 'in_progress', 'finalizing', 'cancelling', 'canceling'],
      100,
    );
    for (const b of rows) {
      // Reached with the caller's own key only: nothing stored can ask for it.
      if (b.credentialId === null) continue;
      await this.#passThrough.refresh(b).catch((err: unknown) => {
        this.#deps.logger.warn({ err, batch: b.id }, 'could not refresh a pass-through batch');
      });
    }
  }

  /** The caller's batch as it is now: a pass-through one is refreshed from its vendor until it ends. */
  async retrieve(p: Principal, family: BatchFamily, id: string): Promise<BatchRecord> {
    const b = await this.find(p, family, id);
    return b.mode === 'passthrough' && b.costRecordedAt === null ? this.#passThrough.refresh(b) : b;
  }

  /** X-Svc-Batch-Concurrency: the caller's cap on the batch's items in flight, within the gateway's. */
  concurrencyOf(header: string | string[] | undefined): number {
    const { concurrency, maxConcurrency } = this.#deps.settings;
    if (header === undefined) return concurrency;
    const n = Number(Array.isArray(header) ? header[0] : header);
    if (!Number.isInteger(n) || n < 1 || n > maxConcurrency)
      throw refuse(`X-Svc-Batch-Concurrency must be an integer from 1 to ${maxConcurrency}`, 'X-Svc-Batch-Concurrency');
    return n;
  }

  #newBatch(p: Principal, family: BatchFamily, now: number, traceLink: TraceLink): BatchRecord {
    return {
      id: newId(family === 'alpha' ? 'batch' : 'msgbatch'),
      orgId: p.orgId,
      projectId: p.projectId,
      keyId: p.keyId,
      family,
      mode: 'local',
      status: family === 'alpha' ? 'validating' : 'in_progress',
      endpoint: null,
      completionWindow: null,
      metadata: null,
      inputFileId: null,
      outputFileId: null,
      errorFileId: null,
      errors: null,
      model: null,
      credentialId: null,
      upstreamId: null,
      upstream: null,
      concurrency: this.#deps.settings.concurrency,
      total: 0,
      succeeded: 0,
      errored: 0,
      canceled: 0,
      expired: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      costRecordedAt: null,
      createdAt: now,
      expiresAt: now + this.#deps.settings.windowMs,
      inProgressAt: null,
      finalizingAt: null,
      cancellingAt: null,
      endedAt: null,
      traceLink,
    };
  }

  /** The caller's batch of that family, or 404. */
  async find(p: Principal, family: BatchFamily, id: string): Promise<BatchRecord> {
    const b = await this.#deps.batches.get(p.orgId, id);
    if (b === undefined || b.family !== family || (p.projectId !== null && b.projectId !== p.projectId))
      throw new GatewayError('not_found', { vars: { what: family === 'alpha' ? 'batch' : 'message batch', id } });
    return b;
  }

  async createAlpha(
    p: Principal,
    body: unknown,
    concurrency = this.#deps.settings.concurrency,
    providerKey?: string,
    traceLink: TraceLink = null,
  ): Promise<BatchRecord> {
    if (!isRecord(body)) throw refuse('the body must be a JSON object');
    const { input_file_id: fileId, endpoint, completion_window: window } = body;
    if (typeof fileId !== 'string' || fileId === '') throw refuse('input_file_id is required', 'input_file_id');
    if (typeof endpoint !== 'string' || ALPHA_BATCH_ENDPOINTS[endpoint] === undefined)
      throw refuse(`endpoint must be one of ${Object.keys(ALPHA_BATCH_ENDPOINTS).join(', ')}`, 'endpoint');
    if (window !== '24h') throw refuse('completion_window must be "24h"', 'completion_window');
    const metadata = metadataOf(body.metadata);
    const file = await this.#deps.files.get(p.orgId, fileId);
    if (file === undefined || (p.projectId !== null && file.projectId !== p.projectId))
      throw new GatewayError('not_found', { vars: { what: 'file', id: fileId }, param: 'input_file_id' });
    if (file.purpose !== 'batch')
      throw refuse(`file ${fileId} has purpose "${file.purpose}", not "batch"`, 'input_file_id');
    await refuseDisallowedFileModels(p, this.#deps, file);
    const b = {
      ...this.#newBatch(p, 'alpha', Date.now(), traceLink),
      endpoint,
      completionWindow: window,
      metadata,
      inputFileId: fileId,
      concurrency,
    };
    const native = await this.#passThrough.alphaEligible(file);
    if (native) {
      await this.#deps.admitBatch(
        p,
        native.map((e) => ({ ...e, principal: p })),
      );
      return this.#passThrough.createAlpha(b, file, providerKey);
    }
    await this.#deps.batches.create(
      b,
      [],
      [{ kind: VALIDATE_JOB, payload: { batch_id: b.id }, idempotencyKey: b.id, maxAttempts: BATCH_JOB_ATTEMPTS }],
    );
    return b;
  }

  async createBeta(
    p: Principal,
    body: unknown,
    concurrency = this.#deps.settings.concurrency,
    providerKey?: string,
    version?: string,
    traceLink: TraceLink = null,
  ): Promise<BatchRecord> {
    const input = parseBetaInput(body);
    refuseDisallowedModels(p, input.models, (i) => `requests.${i}.params.model`);
    await this.#deps.admitBatch(
      p,
      input.estimates.map((e) => ({ ...e, principal: p })),
    );
    const now = Date.now();
    const native = PassThrough.betaModels(input.models);
    const upstream = native && this.#passThrough.upstreamFor(p, 'anthropic', providerKey);
    if (native && upstream) {
      const requests = input.items.map((it, i) => ({
        custom_id: it.customId,
        params: { ...(it.request as JsonObject), model: native[i] },
      }));
      const b = { ...this.#newBatch(p, 'beta', now, traceLink), model: input.model, total: input.items.length };
      return this.#passThrough.createBeta(b, requests, upstream, version);
    }
    const b = {
      ...this.#newBatch(p, 'beta', now, traceLink),
      concurrency,
      model: input.model,
      total: input.items.length,
      inProgressAt: now,
    };
    await this.#deps.batches.create(b, input.items, runJobs(b.id, shardsFor(b.total, this.#deps.settings.shards)));
    return b;
  }

  async list(p: Principal, family: BatchFamily, query: Record<string, unknown>): Promise<Listing> {
    const limit = intParam(query.limit, 'limit', 1, family === 'alpha' ? 100 : 1000, 20);
    const cursor = (name: string) => {
      const v = query[name];
      if (v === undefined) return undefined;
      if (typeof v !== 'string' || v === '') throw refuse(`${name} must be a batch id`, name);
      return v;
    };
    const after = cursor(family === 'alpha' ? 'after' : 'after_id');
    const before = family === 'beta' ? cursor('before_id') : undefined;
    const rows = await this.#deps.batches.list(p.orgId, {
      family,
      projectId: p.projectId,
      limit: limit + 1,
      after,
      before,
    });
    const more = rows.length > limit;
    const page = before !== undefined && more ? rows.slice(1) : rows.slice(0, limit);
    return {
      data: page.map((b) => this.#object(b, '')),
      has_more: more,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    };
  }

  #object(b: BatchRecord, resultsBase: string): JsonObject {
    return b.family === 'alpha' ? alphaBatchObject(b) : betaBatchObject(b, resultsBase);
  }

  /** Asks the executor to stop: items already settled stay, the rest end as canceled. */
  async cancel(p: Principal, family: BatchFamily, id: string): Promise<BatchRecord> {
    const b = await this.find(p, family, id);
    if (b.mode === 'passthrough') return this.#passThrough.cancel(b);
    const [from, to] =
      family === 'alpha' ? [['validating', 'in_progress'], 'cancelling'] : [['in_progress'], 'canceling'];
    if (await this.#deps.batches.transition(b.id, from, { status: to, cancellingAt: Date.now() }))
      return this.find(p, family, id);
    if (b.status === to || b.status === 'finalizing') return b;
    throw refuse(`a batch that is ${b.status} cannot be cancelled`);
  }

  /** Beta only: a found batch's record goes once it has ended; before that it is refused. */
  async delete(b: BatchRecord): Promise<JsonObject> {
    if (b.status !== 'ended') throw refuse(`a message batch can be deleted once it has ended; it is ${b.status}`);
    if (b.mode === 'passthrough') await this.#passThrough.delete(b);
    await this.#deps.batches.markDeleted(b.orgId, b.id, Date.now());
    return { id: b.id, type: 'message_batch_deleted' };
  }

  /** Beta results as JSONL: the vendor's, streamed through, or the local items' in request order. */
  async results(b: BatchRecord): Promise<AsyncIterable<string | Uint8Array>> {
    return b.mode === 'passthrough' ? this.#passThrough.results(b) : itemLines(this.#deps.batches, b.id, betaLine);
  }

  objectOf(b: BatchRecord, resultsBase: string): JsonValue {
    return this.#object(b, resultsBase);
  }
}

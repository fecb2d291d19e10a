// Background responses: the create call is logged once, with its cost, when the response is
// complete. A `responses.poll` job (durable, held by one instance at a time) checks the upstream,
// first after `pollMs`, then twice as long each time up to 30 s; a retrieval that sees the response
// finished completes it too. The instance that took the create call keeps it (with what hooks took
// for it) until then, telling the hooks it is held once its answer is out, and finishes it as any
// call ends; another instance, or this one after a restart, writes the row from the stored record
// instead.
import type { Usage } from '../ir/types.ts';
import type { Job, JobQueue } from '../jobs/types.ts';
import type { Principal } from '../live/principals.ts';
import type { RoutedTarget } from '../pipeline/call.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { endpointCall, recordEndpointCall } from '../pipeline/endpoint-record.ts';
import { holdCall } from '../pipeline/lifecycle.ts';
import { finishRaw, type RawServed } from '../pipeline/raw-call.ts';
import { responsesApi } from '../providers/registry.ts';
import type { VendorId } from '../providers/types.ts';
import type { ResponseRecord, ResponseStore } from '../store/responses.ts';
import { fromJsonText, isRecord } from '../util/json.ts';
import { completedEvents, cost, targetOf } from './objects.ts';
import { type ResponseSummary, summarize, TERMINAL_STATUSES } from './stream-tap.ts';

export const POLL_JOB = 'responses.poll';
/** Ends of a background response that its span marks as failed. */
const TERMINAL_FAILED = new Set(['failed', 'cancelled', 'incomplete']);
/** A background response is polled for this long; then its create call is logged as it last stood. */
const GIVE_UP_MS = 24 * 60 * 60_000;
const MAX_POLL_MS = 30_000;

export interface CompletionDeps {
  pipeline: PipelineDeps;
  store: ResponseStore;
  jobs: JobQueue;
  pollMs: number;
  /**
   * The most of a request body a log row keeps (SWITCHYARD_LOG_BODY_MAX_KB): a held create call
   * keeps no more of its body than that, since it may wait a day for its response to finish.
   */
  logBodyMaxChars: number;
}

/** A create call waiting for its background response to finish, on the instance that took it. */
interface Pending {
  served: RawServed;
  timer: NodeJS.Timeout;
}

/**
 * Drops what a held call's log row will not keep: the parsed body, and the raw text past the log's
 * cut. The row still shows a cut body (its length then counts the held text, not the original).
 */
function shrinkBody(served: RawServed, maxChars: number): void {
  const { call } = served;
  const text = call.rawBody ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  if (text !== undefined && text.length > maxChars)
    call.rawBody = `${text.slice(0, maxChars)}…[truncated: ${text.length} characters]`;
  else call.rawBody = text;
  call.body = null;
}

/** The background response's own span, from its create call to its end, in the GenAI conventions. */
function backgroundAttributes(row: ResponseRecord, s: ResponseSummary, usage: Usage, costUsd: number) {
  return {
    'gen_ai.operation.name': 'response_create',
    'gen_ai.provider.name': row.vendor === 'azure-openai' ? 'azure.ai.openai' : row.vendor,
    'gen_ai.request.model': row.modelRequested,
    'gen_ai.response.model': s.model ?? row.model,
    'gen_ai.response.id': row.id,
    'gen_ai.usage.input_tokens': usage.input,
    'gen_ai.usage.output_tokens': usage.output,
    'switchyard.response.status': s.status,
    'switchyard.request_id': row.requestId,
    'switchyard.org_id': row.orgId,
    'switchyard.key_id': row.keyId,
    'switchyard.project_id': row.projectId,
    'switchyard.cost_usd': costUsd,
  };
}

export class BackgroundCompletion {
  readonly #d: CompletionDeps;
  readonly #pending = new Map<string, Pending>();

  constructor(deps: CompletionDeps) {
    this.#d = deps;
  }

  /** Keeps the create call of a running response until it completes (or the poll gives up). */
  hold(id: string, served: RawServed): void {
    // The caller has its answer: what ends with the answer (the call's span) ends now, not at completion.
    holdCall(this.#d.pipeline, served.call, served.parts);
    shrinkBody(served, this.#d.logBodyMaxChars);
    // The timer never keeps the process alive.
    const timer = setTimeout(() => this.#release(id), GIVE_UP_MS);
    timer.unref();
    this.#pending.set(id, { served, timer });
  }

  #release(id: string): Pending | undefined {
    const p = this.#pending.get(id);
    if (p === undefined) return undefined;
    clearTimeout(p.timer);
    this.#pending.delete(id);
    return p;
  }

  schedulePoll(orgId: string, id: string, n: number): Promise<string> {
    const delay = Math.min(this.#d.pollMs * 2 ** n, MAX_POLL_MS);
    return this.#d.jobs.enqueue({
      kind: POLL_JOB,
      payload: { org_id: orgId, id, n },
      runAt: Date.now() + delay,
      idempotencyKey: `${orgId}:${id}:${n}`,
    });
  }

  /** The `responses.poll` job: logs the create call once the response is complete, or polls again. */
  readonly poll = async (job: Job): Promise<void> => {
    const p = job.payload;
    if (!isRecord(p) || typeof p.org_id !== 'string' || typeof p.id !== 'string') return;
    const n = typeof p.n === 'number' ? p.n : 0;
    const row = await this.#d.store.get(p.org_id, p.id);
    if (row === undefined || row.recordedAt !== null) return;
    let target: RoutedTarget;
    try {
      target = targetOf(this.#d.pipeline.live, row, {});
    } catch {
      return; // the credential is gone: nothing can read it any more
    }
    const answer = await responsesApi(target.vendor).send(target.credential, {
      method: 'GET',
      path: `/responses/${encodeURIComponent(row.id)}`,
    });
    const text = await answer.body.text();
    const s = answer.status === 200 ? summarize(fromJsonText(text)) : undefined;
    const expired = Date.now() - row.createdAt > GIVE_UP_MS;
    if (s !== undefined && TERMINAL_STATUSES.has(s.status)) return this.complete(row, s);
    if (answer.status === 404 || expired)
      return this.complete(row, { id: row.id, status: s?.status ?? 'unknown', usage: undefined, model: undefined });
    await this.schedulePoll(row.orgId, row.id, n + 1);
  };

  /** Logs a background create call with the finished response's cost, once across instances. */
  async complete(row: ResponseRecord, s: ResponseSummary): Promise<void> {
    const events = completedEvents(row.orgId, s, true, row.modelRequested, row.traceLink ?? null);
    if (!(await this.#d.store.markRecorded(row.orgId, row.id, s.status, Date.now(), events))) return;
    const { usage, costUsd } = cost(this.#d.pipeline.live, row.orgId, row.vendor as VendorId, row.model, s);
    this.#d.pipeline.hooks.traceLinks
      ?.startLinked(`response_background ${row.modelRequested}`, 'internal', row.traceLink ?? null, row.createdAt)
      .end(backgroundAttributes(row, s, usage, costUsd), TERMINAL_FAILED.has(s.status) ? s.status : undefined);
    const held = this.#release(row.id);
    if (held !== undefined) {
      const { parts, call } = held.served;
      Object.assign(parts, { usage, costUsd, responseBody: { id: s.id, status: s.status, usage: s.usage ?? null } });
      finishRaw(this.#d.pipeline, call, parts);
      return;
    }
    // Taken over from an instance that stopped: the row is rebuilt from the record.
    const principal: Principal = { orgId: row.orgId, projectId: row.projectId, keyId: row.keyId, rateLimits: null };
    const call = endpointCall('response_create', principal, row.requestId, {});
    call.createdAt = row.createdAt;
    recordEndpointCall(this.#d.pipeline, call, {
      status: 200,
      modelRequested: row.modelRequested,
      modelUsed: row.model,
      vendor: row.vendor,
      credentialId: row.credentialId,
      usage,
      costUsd,
      responseBody: { id: s.id, status: s.status, usage: (s.usage ?? null) as null },
    });
  }

  /** Ends held calls without a record (shutdown): their poll jobs log them later. */
  close(): void {
    for (const id of [...this.#pending.keys()]) this.#release(id);
  }
}

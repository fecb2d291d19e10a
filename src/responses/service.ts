// /alpha/v1/responses: the Responses API passed through to an alpha upstream (openai, azure-openai).
// Ids stay the upstream's. The gateway records each id with the credential, project and model that
// made it, so every follow-up reaches the same upstream, and another project's key, like an unknown
// id, gets 404. The create call is logged once, with its cost, when the response is complete: at
// once for a synchronous one, by the `responses.poll` job (or a retrieval that sees it finished)
// for a background one.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import type { Job, JobQueue } from '../jobs/types.ts';
import type { Principal } from '../live/principals.ts';
import type { ChatTarget } from '../pipeline/call.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { endpointCall, recordEndpointCall } from '../pipeline/endpoint-record.ts';
import {
  asRawReply,
  finishRaw,
  type RawReply,
  type RawServed,
  runPinnedCall,
  runRawCall,
} from '../pipeline/raw-call.ts';
import type { ProxyInput } from '../pipeline/types.ts';
import { computeCost, formatCostHeader } from '../providers/catalog/cost.ts';
import { mapResponsesUsage } from '../providers/openai-compatible/map-usage.ts';
import { type RawAnswer, sendRaw } from '../providers/openai-compatible/raw-api.ts';
import type { VendorId } from '../providers/types.ts';
import type { ResponseRecord, ResponseStore } from '../store/responses.ts';
import { isRecord } from '../util/json.ts';
import { ResponseStreamTap, type ResponseSummary, summarize, TERMINAL_STATUSES } from './stream-tap.ts';

export const RESPONSES_VENDORS: readonly VendorId[] = ['openai', 'azure-openai'];
export const POLL_JOB = 'responses.poll';

export interface ResponsesDeps {
  pipeline: PipelineDeps;
  store: ResponseStore;
  jobs: JobQueue;
  /** First pause between polls of a background response; doubles up to 30 s. */
  pollMs: number;
  onError(err: unknown): void;
}

/** Who is calling, as the HTTP layer knows it. */
export interface ResponsesCaller {
  principal: Principal;
  requestId: string;
  headers: IncomingHttpHeaders;
  signal: AbortSignal;
  rawBody?: string;
}

/** A background response is polled for this long; then its create call is logged as it last stood. */
const GIVE_UP_MS = 24 * 60 * 60_000;
const MAX_POLL_MS = 30_000;

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', {
    message: `Response with id '${id.slice(0, 100)}' not found.`,
    param: 'response_id',
    alphaType: 'invalid_request_error',
  });
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s === undefined || s === '' ? undefined : s;
}

function contentType(answer: RawAnswer): string {
  const ct = answer.headers['content-type'];
  return (Array.isArray(ct) ? ct[0] : ct) ?? 'application/json';
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function cost(vendor: VendorId, model: string, s: ResponseSummary | undefined) {
  const usage = mapResponsesUsage(s?.usage) ?? { input: 0, output: 0 };
  return { usage, costUsd: computeCost(vendor, model, usage).costUsd };
}

/** A create call waiting for its background response to finish, on the instance that took it. */
interface Pending {
  served: RawServed;
  timer: NodeJS.Timeout;
}

export class Responses {
  readonly #d: ResponsesDeps;
  readonly #pending = new Map<string, Pending>();

  constructor(deps: ResponsesDeps) {
    this.#d = deps;
  }

  #input(c: ResponsesCaller, body: unknown): ProxyInput {
    return {
      codec: alphaCodec,
      principal: c.principal,
      requestId: c.requestId,
      body,
      rawBody: c.rawBody,
      headers: c.headers,
      signal: c.signal,
    };
  }

  async create(c: ResponsesCaller, body: unknown): Promise<RawReply> {
    const b = isRecord(body) ? body : {};
    const model = typeof b.model === 'string' ? b.model : '';
    const input = typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? '');
    const result = await runRawCall(
      this.#input(c, body),
      {
        requestType: 'response_create',
        model,
        vendors: RESPONSES_VENDORS,
        what: 'Responses API',
        promptText: input.slice(0, 100_000),
        send: (t, signal) =>
          sendRaw({
            vendor: t.vendor as 'openai' | 'azure-openai',
            credential: t.credential,
            method: 'POST',
            path: '/responses',
            body: JSON.stringify({ ...b, model: t.model }),
            headers: { 'content-type': 'application/json' },
            signal,
          }),
      },
      this.#d.pipeline,
    );
    if (!result.ok) return asRawReply(result.reply);
    const served = result;
    const background = b.background === true;
    if (contentType(served.answer).startsWith('text/event-stream')) return this.#createStream(c, served, background);
    const text = await served.answer.body.text();
    const s = summarize(parse(text));
    const terminal = s !== undefined && TERMINAL_STATUSES.has(s.status);
    if (s !== undefined) await this.#remember(c, served, s, background, terminal);
    const { parts } = served;
    parts.status = served.answer.status;
    parts.responseBody = parse(text) ?? null;
    const headers: Record<string, string> = { ...served.headers, 'content-type': contentType(served.answer) };
    if (terminal || s === undefined) {
      Object.assign(parts, cost(served.target.vendor, served.target.model, s));
      headers['x-svc-cost-usd'] = formatCostHeader(parts.costUsd);
    }
    return {
      kind: 'json',
      status: served.answer.status,
      headers,
      body: text,
      done: () => {
        if (terminal || s === undefined) finishRaw(this.#d.pipeline, served.call, parts);
        else this.#hold(s.id, served);
      },
    };
  }

  #createStream(c: ResponsesCaller, served: RawServed, background: boolean): RawReply {
    const tap = new ResponseStreamTap();
    const remember = (s: ResponseSummary) => this.#remember(c, served, s, background, false);
    async function* relay(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
      for await (const chunk of body) {
        // Recorded before the caller sees the id, so a follow-up can never race the record.
        if (tap.push(chunk) && tap.first !== undefined) await remember(tap.first);
        yield chunk;
      }
    }
    return {
      kind: 'pipe',
      status: served.answer.status,
      headers: { ...served.headers, 'content-type': contentType(served.answer), 'cache-control': 'no-cache' },
      body: relay(served.answer.body),
      done: (finished) => {
        const { parts, target } = served;
        parts.status = finished ? 200 : 499;
        if (tap.terminal && tap.last !== undefined) {
          parts.responseBody = { id: tap.last.id, status: tap.last.status, usage: tap.last.usage ?? null };
          Object.assign(parts, cost(target.vendor, target.model, tap.last));
          const last = tap.last;
          void this.#d.store
            .markRecorded(
              c.principal.orgId,
              last.id,
              last.status,
              Date.now(),
              this.#events(c.principal.orgId, last, background, served.call.modelRequested),
            )
            .catch(this.#d.onError);
          finishRaw(this.#d.pipeline, served.call, parts);
        } else if (background && tap.first !== undefined) {
          // The stream ended before the response did: the poll job logs it once it is complete.
          this.#hold(tap.first.id, served);
          void this.#schedulePoll(c.principal.orgId, tap.first.id, 0).catch(this.#d.onError);
        } else {
          if (!finished) parts.error = { message: 'client disconnected before the response was complete' };
          finishRaw(this.#d.pipeline, served.call, parts);
        }
      },
    };
  }

  #events(orgId: string, s: ResponseSummary, background: boolean, modelRequested: string) {
    if (!background) return [];
    return [
      { orgId, type: 'response.completed' as const, data: { id: s.id, model: modelRequested, status: s.status } },
    ];
  }

  /** Records who owns the response; a background one that is still running also gets its poll job. */
  async #remember(
    c: ResponsesCaller,
    served: RawServed,
    s: ResponseSummary,
    background: boolean,
    recorded: boolean,
  ): Promise<void> {
    const { target } = served;
    const byok = header(c.headers, 'x-svc-provider-key') !== undefined;
    const stored = byok ? this.#d.pipeline.live.credentialsFor(c.principal.orgId, target.vendor)[0]?.id : undefined;
    const record: ResponseRecord = {
      id: s.id,
      orgId: c.principal.orgId,
      projectId: c.principal.projectId,
      keyId: c.principal.keyId,
      vendor: target.vendor,
      credentialId: target.credentialId ?? stored ?? null,
      byok,
      model: target.model,
      modelRequested: served.call.modelRequested,
      requestId: c.requestId,
      background,
      status: s.status,
      createdAt: Date.now(),
      recordedAt: recorded || !background ? Date.now() : null,
    };
    await this.#d.store.insert(record);
    if (background && !recorded && !TERMINAL_STATUSES.has(s.status) && !byok)
      await this.#schedulePoll(record.orgId, s.id, 0);
  }

  #hold(id: string, served: RawServed): void {
    // Given up with the poll; the timer never keeps the process alive.
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

  #schedulePoll(orgId: string, id: string, n: number): Promise<string> {
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
    let target: ChatTarget;
    try {
      target = this.#target(row, {});
    } catch {
      return; // the credential is gone: nothing can read it any more
    }
    const answer = await sendRaw({
      vendor: target.vendor as 'openai' | 'azure-openai',
      credential: target.credential,
      method: 'GET',
      path: `/responses/${encodeURIComponent(row.id)}`,
    });
    const text = await answer.body.text();
    const s = answer.status === 200 ? summarize(parse(text)) : undefined;
    const expired = Date.now() - row.createdAt > GIVE_UP_MS;
    if (s !== undefined && TERMINAL_STATUSES.has(s.status)) return this.#complete(row, s);
    if (answer.status === 404 || expired)
      return this.#complete(row, { id: row.id, status: s?.status ?? 'unknown', usage: undefined, model: undefined });
    await this.#schedulePoll(row.orgId, row.id, n + 1);
  };

  /** Logs a background create call with the finished response's cost, once across instances. */
  async #complete(row: ResponseRecord, s: ResponseSummary): Promise<void> {
    const events = this.#events(row.orgId, s, true, row.modelRequested);
    if (!(await this.#d.store.markRecorded(row.orgId, row.id, s.status, Date.now(), events))) return;
    const vendor = row.vendor as VendorId;
    const { usage, costUsd } = cost(vendor, row.model, s);
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
      provider: row.vendor,
      credentialId: row.credentialId,
      usage,
      costUsd,
      responseBody: { id: s.id, status: s.status, usage: (s.usage ?? null) as null },
    });
  }

  /** The target a stored response lives on: its credential, with the caller's key when it was BYOK. */
  #target(row: ResponseRecord, headers: IncomingHttpHeaders): ChatTarget {
    const vendor = row.vendor as VendorId;
    const key = header(headers, 'x-svc-provider-key');
    const stored =
      row.credentialId === null ? undefined : this.#d.pipeline.live.credentialById(row.orgId, row.credentialId);
    if (row.byok && key === undefined)
      throw new GatewayError('invalid_request', {
        message: 'This response was created with X-Svc-Provider-Key; send the same key to reach it',
        param: 'X-Svc-Provider-Key',
      });
    if (!row.byok && stored === undefined) throw notFound(row.id);
    const credential =
      key !== undefined && row.byok
        ? { apiKey: key, baseUrl: stored?.credential.baseUrl ?? null }
        : (stored?.credential ?? { apiKey: '' });
    return { vendor, vendorAsSent: vendor, model: row.model, credentialId: row.credentialId ?? undefined, credential };
  }

  async #find(c: ResponsesCaller, id: string): Promise<ResponseRecord> {
    const row = await this.#d.store.get(c.principal.orgId, id);
    if (row === undefined || (c.principal.projectId !== null && row.projectId !== c.principal.projectId))
      throw notFound(id);
    return row;
  }

  /** GET, DELETE, cancel and input_items: one call to where the response lives. */
  async followUp(
    c: ResponsesCaller,
    op: 'retrieve' | 'delete' | 'cancel' | 'input_items',
    id: string,
    query: string,
  ): Promise<RawReply> {
    const requestType = `response_${op}`;
    let row: ResponseRecord;
    let target: ChatTarget;
    try {
      row = await this.#find(c, id);
      target = this.#target(row, c.headers);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      const call = endpointCall(requestType, c.principal, c.requestId, c.headers);
      recordEndpointCall(this.#d.pipeline, call, { status: err.status, error: { message: err.message } });
      return {
        kind: 'json',
        status: err.status,
        headers: err.headers ?? {},
        body: alphaCodec.errorBody(err),
        done: () => {},
      };
    }
    const path = `/responses/${encodeURIComponent(row.id)}${op === 'cancel' ? '/cancel' : op === 'input_items' ? '/input_items' : ''}${query}`;
    const method = op === 'delete' ? 'DELETE' : op === 'cancel' ? 'POST' : 'GET';
    const result = await runPinnedCall(
      this.#input(c, null),
      {
        requestType,
        model: row.modelRequested,
        send: (t, signal) =>
          sendRaw({ vendor: t.vendor as 'openai' | 'azure-openai', credential: t.credential, method, path, signal }),
      },
      target,
      this.#d.pipeline,
    );
    if (!result.ok) return asRawReply(result.reply);
    const served = result;
    const headers = { ...served.headers, 'content-type': contentType(served.answer) };
    if (contentType(served.answer).startsWith('text/event-stream'))
      return {
        kind: 'pipe',
        status: served.answer.status,
        headers: { ...headers, 'cache-control': 'no-cache' },
        body: served.answer.body,
        done: (finished) => {
          served.parts.status = finished ? served.answer.status : 499;
          finishRaw(this.#d.pipeline, served.call, served.parts);
        },
      };
    const text = await served.answer.body.text();
    const obj = parse(text);
    await this.#afterFollowUp(row, op, obj);
    served.parts.status = served.answer.status;
    served.parts.responseBody = obj ?? null;
    return {
      kind: 'json',
      status: served.answer.status,
      headers,
      body: text,
      done: () => finishRaw(this.#d.pipeline, served.call, served.parts),
    };
  }

  /** What a follow-up's answer tells the record: a deletion, a new status, a finished background response. */
  async #afterFollowUp(row: ResponseRecord, op: string, obj: unknown): Promise<void> {
    try {
      if (op === 'delete') {
        await this.#d.store.markDeleted(row.orgId, row.id, Date.now());
        return;
      }
      if (op === 'input_items') return;
      const s = summarize(obj);
      if (s === undefined || s.id !== row.id) return;
      if (row.recordedAt === null && TERMINAL_STATUSES.has(s.status)) await this.#complete(row, s);
      else if (s.status !== row.status) await this.#d.store.setStatus(row.orgId, row.id, s.status);
    } catch (err) {
      this.#d.onError(err);
    }
  }

  /** Ends held calls without a record (shutdown): their poll jobs log them later. */
  close(): void {
    for (const id of [...this.#pending.keys()]) this.#release(id);
  }
}

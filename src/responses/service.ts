// /alpha/v1/responses: the Responses API passed through to an alpha upstream (openai, azure-openai).
// Ids stay the upstream's. The gateway records each id with the credential, project and model that
// made it, so every follow-up reaches the same upstream, and another project's key, like an unknown
// id, gets 404. The create call is logged once, with its cost, when the response is complete: at
// once for a synchronous one, by the `responses.poll` job (or a retrieval that sees it finished)
// for a background one.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import { headerValue } from '../families/shared/svc-headers.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { JobQueue } from '../jobs/types.ts';
import type { Principal } from '../live/principals.ts';
import type { RoutedTarget } from '../pipeline/call.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { endpointCall, recordEndpointCall } from '../pipeline/endpoint-record.ts';
import {
  asRawReply,
  finishRaw,
  type RawReply,
  type RawServed,
  rawInput,
  refuseRaw,
  runPinnedCall,
  runRawCall,
} from '../pipeline/raw-call.ts';
import { formatCostHeader } from '../providers/catalog/cost.ts';
import { contentTypeOf } from '../providers/http.ts';
import { responsesApi } from '../providers/registry.ts';
import type { VendorId } from '../providers/types.ts';
import type { FileStore } from '../store/files.ts';
import type { ResponseRecord, ResponseStore } from '../store/responses.ts';
import { fromJsonText, isRecord } from '../util/json.ts';
import { BackgroundCompletion } from './background.ts';
import { completedEvents, cost, notFound, targetOf } from './objects.ts';
import { checkReferences } from './references.ts';
import { RestoringStream, restoreJsonText } from './restore-stream.ts';
import { ResponseStreamTap, type ResponseSummary, summarize, TERMINAL_STATUSES } from './stream-tap.ts';

export { POLL_JOB } from './background.ts';

export const RESPONSES_VENDORS: readonly VendorId[] = ['openai', 'azure-openai'];

export interface ResponsesDeps {
  pipeline: PipelineDeps;
  store: ResponseStore;
  /** Where `input_file` ids are checked against the caller's project (references.ts). */
  files: Pick<FileStore, 'get'>;
  jobs: JobQueue;
  /** First pause between polls of a background response; doubles up to 30 s. */
  pollMs: number;
  /** See CompletionDeps.logBodyMaxChars. */
  logBodyMaxChars: number;
  onError(err: unknown): void;
}

/** Who is calling, as the HTTP layer knows it. */
export interface ResponsesCaller {
  principal: Principal;
  requestId: string;
  headers: IncomingHttpHeaders;
  signal: CallSignal;
  rawBody?: string;
}

export class Responses {
  readonly #d: ResponsesDeps;
  readonly #bg: BackgroundCompletion;

  constructor(deps: ResponsesDeps) {
    this.#d = deps;
    this.#bg = new BackgroundCompletion(deps);
  }

  /** The `responses.poll` job handler (registered by the app on its job runner). */
  get poll(): BackgroundCompletion['poll'] {
    return this.#bg.poll;
  }

  async create(c: ResponsesCaller, body: unknown): Promise<RawReply> {
    const b = isRecord(body) ? body : {};
    const model = typeof b.model === 'string' ? b.model : '';
    const input = typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? '');
    if (headerValue(c.headers, 'x-svc-provider-key') === undefined) {
      const refused = await checkReferences(c.principal, b, {
        response: (orgId, id) => this.#d.store.get(orgId, id),
        file: (orgId, id) => this.#d.files.get(orgId, id),
      }).then(
        () => undefined,
        (err: unknown) => {
          if (err instanceof GatewayError)
            return refuseRaw(rawInput(c, body), 'response_create', err, this.#d.pipeline);
          throw err;
        },
      );
      if (refused !== undefined) return refused;
    }
    const result = await runRawCall(
      rawInput(c, body),
      {
        requestType: 'response_create',
        model,
        vendors: RESPONSES_VENDORS,
        what: 'Responses API',
        promptText: input.slice(0, 100_000),
        maskable: true,
        send: (t, signal, mask) =>
          responsesApi(t.vendor).send(t.credential, {
            method: 'POST',
            path: '/responses',
            body: mask(JSON.stringify({ ...b, model: t.model })),
            headers: { 'content-type': 'application/json' },
            signal,
          }),
      },
      this.#d.pipeline,
    );
    if (!result.ok) return asRawReply(result.reply);
    const served = result;
    const background = b.background === true;
    if (contentTypeOf(served.answer).startsWith('text/event-stream')) return this.#createStream(c, served, background);
    const text = await served.answer.body.text();
    const s = summarize(fromJsonText(text));
    const terminal = s !== undefined && TERMINAL_STATUSES.has(s.status);
    if (s !== undefined) await this.#remember(c, served, s, background, terminal);
    const { parts } = served;
    parts.status = served.answer.status;
    parts.responseBody = fromJsonText(text) ?? null;
    const headers: Record<string, string> = { ...served.headers, 'content-type': contentTypeOf(served.answer) };
    if (terminal || s === undefined) {
      Object.assign(
        parts,
        cost(this.#d.pipeline.live, c.principal.orgId, served.target.vendor, served.target.model, s),
      );
      headers['x-svc-cost-usd'] = formatCostHeader(parts.costUsd);
    }
    return {
      kind: 'json',
      status: served.answer.status,
      headers,
      // The row keeps the placeholders the upstream saw; only the caller gets the originals back.
      body: served.restore ? restoreJsonText(text, served.restore) : text,
      done: () => {
        if (terminal || s === undefined) finishRaw(this.#d.pipeline, served.call, parts);
        else this.#bg.hold(s.id, served);
      },
    };
  }

  #createStream(c: ResponsesCaller, served: RawServed, background: boolean): RawReply {
    const tap = new ResponseStreamTap();
    const remember = (s: ResponseSummary) => this.#remember(c, served, s, background, false);
    const restoring = served.restore ? new RestoringStream(served.restore) : undefined;
    async function* relay(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
      for await (const chunk of body) {
        // Recorded before the caller sees the id, so a follow-up can never race the record.
        if (tap.push(chunk) && tap.first !== undefined) await remember(tap.first);
        const out = restoring === undefined ? chunk : restoring.push(chunk);
        if (out.byteLength > 0) yield out;
      }
      const rest = restoring?.end();
      if (rest !== undefined && rest.byteLength > 0) yield rest;
    }
    return {
      kind: 'pipe',
      status: served.answer.status,
      headers: { ...served.headers, 'content-type': contentTypeOf(served.answer), 'cache-control': 'no-cache' },
      body: relay(served.answer.body),
      done: (finished) => {
        const { parts, target } = served;
        parts.status = finished ? 200 : 499;
        if (tap.terminal && tap.last !== undefined) {
          parts.responseBody = { id: tap.last.id, status: tap.last.status, usage: tap.last.usage ?? null };
          Object.assign(parts, cost(this.#d.pipeline.live, c.principal.orgId, target.vendor, target.model, tap.last));
          const last = tap.last;
          void this.#d.store
            .markRecorded(
              c.principal.orgId,
              last.id,
              last.status,
              Date.now(),
              completedEvents(
                c.principal.orgId,
                last,
                background,
                served.call.modelRequested,
                served.call.replyHeaders?.traceparent,
              ),
            )
            .catch(this.#d.onError);
          finishRaw(this.#d.pipeline, served.call, parts);
        } else if (background && tap.first !== undefined) {
          // The stream ended before the response did: the poll job logs it once it is complete.
          // Until then the record names the response (the call's span ends as it is held).
          const first = tap.first;
          parts.responseBody = { id: first.id, status: first.status, usage: null };
          this.#bg.hold(first.id, served);
          void this.#bg.schedulePoll(c.principal.orgId, first.id, 0).catch(this.#d.onError);
        } else {
          if (!finished) parts.error = { message: 'client disconnected before the response was complete' };
          finishRaw(this.#d.pipeline, served.call, parts);
        }
      },
    };
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
    const byok = headerValue(c.headers, 'x-svc-provider-key') !== undefined;
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
      // The create call's context when tracing is on (its answer's traceparent): the completion links to it.
      traceLink: background ? (served.call.replyHeaders?.traceparent ?? null) : null,
    };
    await this.#d.store.insert(record);
    if (background && !recorded && !TERMINAL_STATUSES.has(s.status) && !byok)
      await this.#bg.schedulePoll(record.orgId, s.id, 0);
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
    let target: RoutedTarget;
    try {
      row = await this.#find(c, id);
      target = targetOf(this.#d.pipeline.live, row, c.headers);
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
      rawInput(c, null),
      {
        requestType,
        model: row.modelRequested,
        send: (t, signal) => responsesApi(t.vendor).send(t.credential, { method, path, signal }),
      },
      target,
      this.#d.pipeline,
    );
    if (!result.ok) return asRawReply(result.reply);
    const served = result;
    const headers = { ...served.headers, 'content-type': contentTypeOf(served.answer) };
    if (contentTypeOf(served.answer).startsWith('text/event-stream'))
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
    const obj = fromJsonText(text);
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
      if (row.recordedAt === null && TERMINAL_STATUSES.has(s.status)) await this.#bg.complete(row, s);
      else if (s.status !== row.status) await this.#d.store.setStatus(row.orgId, row.id, s.status);
    } catch (err) {
      this.#d.onError(err);
    }
  }

  /** Ends held calls without a record (shutdown): their poll jobs log them later. */
  close(): void {
    this.#bg.close();
  }
}

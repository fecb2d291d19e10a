// The proxy routes of both families: each binds a route of the proxy list (manage/proxy-paths.ts)
// to a family codec and a pipeline flow, and writes the pipeline's reply (JSON or SSE). Nothing
// here knows what a flow does.

import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { GatewayError, ShutdownAbort } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import { betaCodec } from '../families/beta/codec.ts';
import type { FamilyCodec } from '../families/shared/codec.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { Principal } from '../live/principals.ts';
import { PROXY_PATHS, type ProxyRouteNames } from '../manage/proxy-paths.ts';
import { runChat } from '../pipeline/chat.ts';
import { runCountTokens } from '../pipeline/count-tokens.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { runEmbedding } from '../pipeline/embeddings.ts';
import type { PipelineReply, ProxyInput } from '../pipeline/types.ts';
import { CallAbort } from '../util/call-abort.ts';
import { safeHeaders } from './header-value.ts';
import { alphaModelList, betaModelList } from './model-lists.ts';
import { requestIdHeaders } from './request-id.ts';
import { type ProxyRequest, registerProxyGroup } from './route-table.ts';
import { writeSse } from './sse.ts';

type Flow = (input: ProxyInput, deps: PipelineDeps) => Promise<PipelineReply>;

/** Where a tracked response keeps its slot in `InFlight`. */
const SLOT = Symbol('inFlightSlot');
type Tracked = ServerResponse & { [SLOT]?: number };

/**
 * The proxy calls in flight, so that a shutdown whose drain time ran out can end each of them with
 * an error answer (and a log row) instead of letting the process exit under them.
 *
 * Kept in an array of slots, not a Map keyed by response: as calls come and go a Map rebuilds its
 * table, and each retired table keeps a link to its successor. A retired table that had reached the
 * old generation kept every later table, and every response and abort controller in them, alive
 * through young collections until the next full one: 4.7 KB per call moved to the old generation
 * and a full collection every ~3,000 calls, against 0.6 KB without the Map (bench/gc.ts).
 */
export class InFlight {
  readonly #calls: Array<CallAbort | undefined> = [];
  /** Slots of finished calls, reused first. */
  readonly #free: number[] = [];
  // One listener for every call (it finds its call by the response it fires on): no closure per call.
  readonly #onClose: (this: Tracked) => void;

  constructor() {
    const calls = this.#calls;
    const free = this.#free;
    this.#onClose = function onClose(this: Tracked): void {
      const slot = this[SLOT];
      if (slot === undefined) return;
      this[SLOT] = undefined;
      const ac = calls[slot];
      calls[slot] = undefined;
      free.push(slot);
      if (ac !== undefined && !this.writableFinished) ac.abort(new Error('client disconnected'));
    };
  }

  /** Aborts when the caller disconnects before the response is complete, or on abortAll(). */
  track(raw: ServerResponse): CallSignal {
    // No route tracks a response twice today; if one did, a second slot would never be freed (one
    // close listener frees one slot), so a response already tracked keeps its call and signal.
    const tracked = (raw as Tracked)[SLOT];
    const known = tracked === undefined ? undefined : this.#calls[tracked];
    if (known !== undefined) return known;
    // A light cell, not an AbortController: nothing downstream needs a real signal (util/call-abort.ts).
    const ac = new CallAbort();
    const slot = this.#free.pop() ?? this.#calls.length;
    this.#calls[slot] = ac;
    (raw as Tracked)[SLOT] = slot;
    raw.once('close', this.#onClose);
    return ac;
  }

  get size(): number {
    return this.#calls.length - this.#free.length;
  }

  abortAll(): void {
    for (const ac of this.#calls) ac?.abort(new ShutdownAbort());
  }
}

/** What a proxy call needs of its HTTP request, whichever door it came in by (front-door.ts or fastify). */
export interface ProxyCallRequest {
  principal: Principal;
  svcId: string;
  body: unknown;
  rawBody: string | undefined;
  headers: IncomingHttpHeaders;
}

/** Serves one proxy call of one route: the handler both doors call. */
export type ProxyServe = (req: ProxyCallRequest, res: ServerResponse) => Promise<void>;

/**
 * Runs the flow and writes its reply on the raw response: a JSON answer in one writeHead + end,
 * a stream through the SSE writer. A fault the flow did not turn into an answer is a 500 in the
 * family's error shape, written here because neither door has a framework reply to fall back on.
 */
async function serve(
  req: ProxyCallRequest,
  res: ServerResponse,
  route: { codec: FamilyCodec; flow: Flow; dryRun?: boolean },
  deps: PipelineDeps,
  inFlight: InFlight,
  onFault: OnFault,
): Promise<void> {
  const signal = inFlight.track(res);
  let out: PipelineReply;
  try {
    out = await route.flow(
      {
        codec: route.codec,
        principal: req.principal,
        requestId: req.svcId,
        body: req.body,
        rawBody: req.rawBody,
        headers: req.headers,
        signal,
        dryRun: route.dryRun,
      },
      deps,
    );
  } catch (err) {
    onFault(err, req.svcId);
    writeJson(res, 500, {}, route.codec.errorBody(new GatewayError('internal_error')), req.svcId);
    return;
  }
  if (out.kind === 'stream') {
    await writeSse(res, out, signal, req.svcId);
    return;
  }
  // The hooks run (synchronously) just before the answer is written: the log row is journaled
  // before the caller can see the answer, so a kill -9 an instant after it cannot lose the row.
  // Run after the write, a process preempted between the two could be killed in that gap.
  out.done();
  writeJson(res, out.status, safeHeaders(out.headers), out.body, req.svcId);
}

/** Status, headers and body in one writeHead + end (one writev on the socket). */
export function writeJson(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: unknown,
  requestId: string,
): void {
  if (res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = String(Buffer.byteLength(text));
  Object.assign(headers, requestIdHeaders(requestId));
  res.writeHead(status, headers);
  res.end(text);
}

/** The pipeline's routes by path (root aliases already rewritten), for the front door. */
export type ProxyServeTable = ReadonlyMap<string, ProxyServe>;

type CallRoute = Exclude<ProxyRouteNames['calls'], 'alpha_models' | 'beta_models'>;

/** Where a fault no flow turned into an answer is reported (the caller gets a 500). */
export type OnFault = (err: unknown, requestId: string) => void;

/**
 * The model-call routes: `byPath` for the front door (front-door.ts), `plugin` registers the same
 * handlers with fastify, which serves every call the front door leaves to it.
 */
export function proxyRoutes(deps: PipelineDeps, inFlight: InFlight, onFault: OnFault) {
  const serving = (codec: FamilyCodec, flow: Flow, dryRun?: boolean): ProxyServe => {
    const route = { codec, flow, dryRun };
    return (req, res) => serve(req, res, route, deps, inFlight, onFault);
  };
  const calls: Record<CallRoute, ProxyServe> = {
    chat: serving(alphaCodec, runChat),
    // Same logic as the X-Svc-Dry-Run header, whatever the header says.
    dry_run: serving(alphaCodec, runChat, true),
    embeddings: serving(alphaCodec, runEmbedding),
    messages: serving(betaCodec, runChat),
    count_tokens: serving(betaCodec, runCountTokens),
  };
  const byPath = new Map<string, ProxyServe>();
  for (const row of PROXY_PATHS)
    if (row.group === 'calls' && row.route in calls) byPath.set(row.path, calls[row.route as CallRoute]);
  // The reply is written on the raw response by `serve`, as the front door's is.
  const viaFastify =
    (one: ProxyServe) =>
    (req: ProxyRequest, reply: FastifyReply): Promise<void> => {
      reply.hijack();
      return one(req, reply.raw);
    };
  const plugin = async (app: FastifyInstance): Promise<void> => {
    registerProxyGroup(app, 'calls', {
      chat: viaFastify(calls.chat),
      dry_run: viaFastify(calls.dry_run),
      embeddings: viaFastify(calls.embeddings),
      alpha_models: alphaModelList(deps.live),
      messages: viaFastify(calls.messages),
      count_tokens: viaFastify(calls.count_tokens),
      beta_models: betaModelList(deps.live),
    });
  };
  return { byPath, plugin };
}

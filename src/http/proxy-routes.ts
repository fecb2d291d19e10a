// The proxy routes of both families: each binds a route of the proxy list (manage/proxy-paths.ts)
// to a family codec and a pipeline flow, and writes the pipeline's reply (JSON or SSE). Nothing
// here knows what a flow does.

import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ShutdownAbort } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import { betaCodec } from '../families/beta/codec.ts';
import type { FamilyCodec } from '../families/shared/codec.ts';
import { runChat } from '../pipeline/chat.ts';
import { runCountTokens } from '../pipeline/count-tokens.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { runEmbedding } from '../pipeline/embeddings.ts';
import type { PipelineReply, ProxyInput } from '../pipeline/types.ts';
import { safeHeaders } from './header-value.ts';
import { alphaModelList, betaModelList } from './model-lists.ts';
import { type ProxyRequest, registerProxyGroup } from './route-table.ts';
import { writeSse } from './sse.ts';

type Flow = (input: ProxyInput, deps: PipelineDeps) => Promise<PipelineReply>;

/**
 * The proxy calls in flight, so that a shutdown whose drain time ran out can end each of them with
 * an error answer (and a log row) instead of letting the process exit under them.
 */
export class InFlight {
  readonly #calls = new Map<ServerResponse, AbortController>();
  // One listener for every call (it finds its call by the response it fires on): no closure per call.
  readonly #onClose: (this: ServerResponse) => void;

  constructor() {
    const calls = this.#calls;
    this.#onClose = function onClose(this: ServerResponse): void {
      const ac = calls.get(this);
      calls.delete(this);
      if (ac !== undefined && !this.writableFinished) ac.abort(new Error('client disconnected'));
    };
  }

  /** Aborts when the caller disconnects before the response is complete, or on abortAll(). */
  track(reply: FastifyReply): AbortSignal {
    const ac = new AbortController();
    const raw = reply.raw;
    this.#calls.set(raw, ac);
    raw.once('close', this.#onClose);
    return ac.signal;
  }

  get size(): number {
    return this.#calls.size;
  }

  abortAll(): void {
    for (const ac of this.#calls.values()) ac.abort(new ShutdownAbort());
  }
}

async function serve(
  req: ProxyRequest,
  reply: FastifyReply,
  codec: FamilyCodec,
  flow: Flow,
  deps: PipelineDeps,
  inFlight: InFlight,
  dryRun?: boolean,
): Promise<FastifyReply> {
  const signal = inFlight.track(reply);
  const out = await flow(
    {
      codec,
      principal: req.principal,
      requestId: req.svcId,
      body: req.body,
      rawBody: req.rawBody,
      headers: req.headers,
      signal,
      dryRun,
    },
    deps,
  );
  if (out.kind === 'stream') {
    reply.hijack();
    await writeSse(reply.raw, out, signal, req.svcId);
    return reply;
  }
  reply.code(out.status).headers(safeHeaders(out.headers));
  if (typeof out.body === 'string') reply.type('application/json; charset=utf-8');
  // The hooks run (synchronously) just before the answer is written: the log row is journaled
  // before the caller can see the answer, so a kill -9 an instant after it cannot lose the row.
  // Run after the write, a process preempted between the two could be killed in that gap.
  out.done();
  reply.send(out.body);
  return reply;
}

export function proxyRoutes(deps: PipelineDeps, inFlight: InFlight) {
  const route = (codec: FamilyCodec, flow: Flow, dryRun?: boolean) => (req: ProxyRequest, reply: FastifyReply) =>
    serve(req, reply, codec, flow, deps, inFlight, dryRun);
  return async (app: FastifyInstance): Promise<void> => {
    registerProxyGroup(app, 'calls', {
      chat: route(alphaCodec, runChat),
      // Same logic as the X-Svc-Dry-Run header, whatever the header says.
      dry_run: route(alphaCodec, runChat, true),
      embeddings: route(alphaCodec, runEmbedding),
      alpha_models: alphaModelList(deps.live),
      messages: route(betaCodec, runChat),
      count_tokens: route(betaCodec, runCountTokens),
      beta_models: betaModelList(deps.live),
    });
  };
}

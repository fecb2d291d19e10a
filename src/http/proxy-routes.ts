// The proxy routes of both families: each binds a path to a family codec and a pipeline flow, and
// writes the pipeline's reply (JSON or SSE). Nothing here knows what a flow does.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ShutdownAbort } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import { betaCodec } from '../families/beta/codec.ts';
import type { FamilyCodec } from '../families/shared/codec.ts';
import { runChat } from '../pipeline/chat.ts';
import { runCountTokens } from '../pipeline/count-tokens.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { runEmbeddings } from '../pipeline/embeddings.ts';
import type { PipelineReply, ProxyInput } from '../pipeline/types.ts';
import { safeHeaders } from './header-value.ts';
import { requireBody } from './json-body.ts';
import { writeSse } from './sse.ts';

type Flow = (input: ProxyInput, deps: PipelineDeps) => Promise<PipelineReply>;

/**
 * The proxy calls in flight, so that a shutdown whose drain time ran out can end each of them with
 * an error answer (and a log row) instead of letting the process exit under them.
 */
export class InFlight {
  readonly #calls = new Set<AbortController>();

  /** Aborts when the caller disconnects before the response is complete, or on abortAll(). */
  track(reply: FastifyReply): AbortSignal {
    const ac = new AbortController();
    this.#calls.add(ac);
    reply.raw.on('close', () => {
      this.#calls.delete(ac);
      if (!reply.raw.writableFinished) ac.abort(new Error('client disconnected'));
    });
    return ac.signal;
  }

  get size(): number {
    return this.#calls.size;
  }

  abortAll(): void {
    for (const ac of this.#calls) ac.abort(new ShutdownAbort());
  }
}

async function serve(
  req: FastifyRequest,
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
    await writeSse(reply.raw, out, signal);
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
  return async (app: FastifyInstance): Promise<void> => {
    const json = { preValidation: requireBody };
    app.post('/alpha/v1/chat/completions', json, (req, reply) =>
      serve(req, reply, alphaCodec, runChat, deps, inFlight),
    );
    // Same logic as the X-Svc-Dry-Run header, whatever the header says.
    app.post('/alpha/v1/dry-run', json, (req, reply) => serve(req, reply, alphaCodec, runChat, deps, inFlight, true));
    app.post('/alpha/v1/embeddings', json, (req, reply) =>
      serve(req, reply, alphaCodec, runEmbeddings, deps, inFlight),
    );
    app.get('/alpha/v1/models', async () => ({ object: 'list', data: [] }));
    app.post('/beta/v1/messages', json, (req, reply) => serve(req, reply, betaCodec, runChat, deps, inFlight));
    app.post('/beta/v1/messages/count_tokens', json, (req, reply) =>
      serve(req, reply, betaCodec, runCountTokens, deps, inFlight),
    );
    app.get('/beta/v1/models', async () => ({ data: [], has_more: false }));
  };
}

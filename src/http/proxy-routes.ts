// The proxy routes of both families: each binds a path to a family codec and a pipeline flow, and
// writes the pipeline's reply (JSON or SSE). Nothing here knows what a flow does.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { alphaCodec } from '../families/alpha/codec.ts';
import { betaCodec } from '../families/beta/codec.ts';
import type { FamilyCodec } from '../families/shared/codec.ts';
import { runChat } from '../pipeline/chat.ts';
import { runCountTokens } from '../pipeline/count-tokens.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { runEmbeddings } from '../pipeline/embeddings.ts';
import type { PipelineReply, ProxyInput } from '../pipeline/types.ts';
import { safeHeaders } from './header-value.ts';
import { writeSse } from './sse.ts';

type Flow = (input: ProxyInput, deps: PipelineDeps) => Promise<PipelineReply>;

/** Aborts when the caller disconnects before the response is complete. */
function callerSignal(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) ac.abort(new Error('client disconnected'));
  });
  return ac.signal;
}

async function serve(
  req: FastifyRequest,
  reply: FastifyReply,
  codec: FamilyCodec,
  flow: Flow,
  deps: PipelineDeps,
  dryRun?: boolean,
): Promise<FastifyReply> {
  const signal = callerSignal(reply);
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
  reply.send(out.body);
  // Hooks (the log row among them) run after the answer is on its way.
  out.done();
  return reply;
}

export function proxyRoutes(deps: PipelineDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/alpha/v1/chat/completions', (req, reply) => serve(req, reply, alphaCodec, runChat, deps));
    // Same logic as the X-Svc-Dry-Run header, whatever the header says.
    app.post('/alpha/v1/dry-run', (req, reply) => serve(req, reply, alphaCodec, runChat, deps, true));
    app.post('/alpha/v1/embeddings', (req, reply) => serve(req, reply, alphaCodec, runEmbeddings, deps));
    app.get('/alpha/v1/models', async () => ({ object: 'list', data: [] }));
    app.post('/beta/v1/messages', (req, reply) => serve(req, reply, betaCodec, runChat, deps));
    app.post('/beta/v1/messages/count_tokens', (req, reply) => serve(req, reply, betaCodec, runCountTokens, deps));
    app.get('/beta/v1/models', async () => ({ data: [], has_more: false }));
  };
}

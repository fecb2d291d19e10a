// Family alpha proxy routes (chat completions, embeddings, models). Thin: the shared proxy core does
// the work; this file only binds paths and the family's error shape.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { handleChat } from '../pipeline/chat.ts';
import type { Principal } from '../pipeline/deps.ts';
import { handleEmbeddings } from '../pipeline/embeddings-handler.ts';
import type { RoutedProxyDeps } from '../pipeline/route.ts';

export interface ProxyRequestInfo {
  principal: Principal;
  requestId: string;
}

export type RequestInfo = (req: FastifyRequest) => ProxyRequestInfo;

/** Aborts when the caller disconnects before the response is complete. */
function callerSignal(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) ac.abort(new Error('client disconnected'));
  });
  return ac.signal;
}

/** What every proxy handler of either family reads off the request. */
export function proxyContext(req: FastifyRequest, reply: FastifyReply, info: RequestInfo) {
  const { principal, requestId } = info(req);
  return {
    principal,
    requestId,
    body: req.body,
    rawBody: req.rawBody,
    headers: req.headers,
    signal: callerSignal(reply),
  };
}

export async function alphaRoutes(app: FastifyInstance, deps: RoutedProxyDeps, info: RequestInfo): Promise<void> {
  app.post('/alpha/v1/chat/completions', async (req, reply) => {
    await handleChat({ family: 'alpha', ...proxyContext(req, reply, info) }, reply, deps);
    return reply;
  });
  // Same logic as the X-Svc-Dry-Run header, whatever the header says.
  app.post('/alpha/v1/dry-run', async (req, reply) => {
    await handleChat({ family: 'alpha', ...proxyContext(req, reply, info), dryRun: true }, reply, deps);
    return reply;
  });
  app.post('/alpha/v1/embeddings', async (req, reply) => {
    await handleEmbeddings(proxyContext(req, reply, info), reply, deps);
    return reply;
  });
  app.get('/alpha/v1/models', async () => ({ object: 'list', data: [] }));
}

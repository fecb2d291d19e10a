// Family beta proxy routes (messages, count_tokens, models).
import type { FastifyInstance } from 'fastify';
import { handleChat } from '../../proxy/chat-handler.ts';
import { handleCountTokens } from '../../proxy/count-tokens.ts';
import type { RoutedProxyDeps } from '../../routing/chat-route.ts';
import { callerSignal, type RequestInfo } from '../alpha/routes.ts';

export async function betaRoutes(app: FastifyInstance, deps: RoutedProxyDeps, info: RequestInfo): Promise<void> {
  app.post('/beta/v1/messages', async (req, reply) => {
    const { principal, requestId } = info(req);
    await handleChat(
      {
        family: 'beta',
        principal,
        requestId,
        body: req.body,
        rawBody: req.rawBody,
        headers: req.headers,
        signal: callerSignal(req, reply),
      },
      reply,
      deps,
    );
    return reply;
  });
  app.post('/beta/v1/messages/count_tokens', async (req, reply) => {
    const { principal, requestId } = info(req);
    await handleCountTokens(
      { principal, requestId, body: req.body, headers: req.headers, signal: callerSignal(req, reply) },
      reply,
      deps,
    );
    return reply;
  });
  app.get('/beta/v1/models', async () => ({ data: [], has_more: false }));
}

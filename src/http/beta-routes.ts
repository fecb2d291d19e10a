// Family beta proxy routes (messages, count_tokens, models).
import type { FastifyInstance } from 'fastify';
import { handleChat } from '../pipeline/chat.ts';
import { handleCountTokens } from '../pipeline/count-tokens.ts';
import type { RoutedProxyDeps } from '../pipeline/route.ts';
import { proxyContext, type RequestInfo } from './alpha-routes.ts';

export async function betaRoutes(app: FastifyInstance, deps: RoutedProxyDeps, info: RequestInfo): Promise<void> {
  app.post('/beta/v1/messages', async (req, reply) => {
    await handleChat({ family: 'beta', ...proxyContext(req, reply, info) }, reply, deps);
    return reply;
  });
  app.post('/beta/v1/messages/count_tokens', async (req, reply) => {
    await handleCountTokens(proxyContext(req, reply, info), reply, deps);
    return reply;
  });
  app.get('/beta/v1/models', async () => ({ data: [], has_more: false }));
}

// GET /metrics: the gateway's Prometheus exposition. Scrapers authenticate like management clients
// (an org-wide API key) unless SWITCHYARD_METRICS_PUBLIC opens it, e.g. behind a private network.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PrincipalMirror } from '../live/principals.ts';
import type { Metrics } from '../metrics/registry.ts';
import { extractApiKey, missingKeyMessage } from './auth.ts';
import { sendCode } from './errors.ts';

export interface MetricsRouteOptions {
  /** Serve without a key (SWITCHYARD_METRICS_PUBLIC). */
  public: boolean;
  principals: PrincipalMirror;
}

type Refusal = { code: 'invalid_api_key' | 'insufficient_scope'; message: string };

async function refusal(request: FastifyRequest, principals: PrincipalMirror): Promise<Refusal | undefined> {
  const key = extractApiKey(request.headers);
  if (key === undefined) return { code: 'invalid_api_key', message: missingKeyMessage(request.headers) };
  const principal = await principals.authenticate(key);
  if (principal === undefined) return { code: 'invalid_api_key', message: 'Invalid API key' };
  // Metrics cover every project of the gateway, so a project's key may not read them.
  if (principal.projectId !== null)
    return {
      code: 'insufficient_scope',
      message: 'GET /metrics needs an org-wide API key; this key is scoped to one project',
    };
  return undefined;
}

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, opts: MetricsRouteOptions): void {
  app.get('/metrics', async (request, reply) => {
    const refused = opts.public ? undefined : await refusal(request, opts.principals);
    if (refused) return sendCode(reply, refused.code, { message: refused.message });
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });
}

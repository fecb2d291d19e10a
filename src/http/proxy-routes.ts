// Registers both proxy families and binds them to the gateway's in-memory services. The proxy sees
// only the narrow ProxyDeps interface (src/proxy/deps.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ProxyLogRow } from '../pipeline/deps.ts';
import type { RoutedProxyDeps } from '../pipeline/route.ts';
import type { Services } from '../services.ts';
import type { RequestLogRow } from '../store/request-logs.ts';
import { alphaRoutes, type ProxyRequestInfo } from './alpha-routes.ts';
import { betaRoutes } from './beta-routes.ts';

function bodyText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function toStoreRow(r: ProxyLogRow): RequestLogRow {
  return {
    id: r.id,
    requestType: r.requestType,
    orgId: r.orgId,
    projectId: r.projectId,
    apiKeyId: r.keyId,
    endUser: r.endUser,
    tags: Object.keys(r.tags).length > 0 ? r.tags : null,
    traceId: r.traceId,
    conversationId: r.conversationId,
    modelRequested: r.modelRequested,
    modelUsed: r.modelUsed,
    provider: r.provider,
    credentialId: r.credentialId,
    statusCode: r.status,
    latencyMs: Math.round(r.latencyMs * 100) / 100,
    ttfbMs: r.ttfbMs === null ? null : Math.round(r.ttfbMs * 100) / 100,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cacheReadTokens: r.cacheReadTokens,
    cacheCreationTokens: r.cacheCreationTokens,
    costUsd: r.costUsd,
    error: r.error,
    decisionTrace: r.trace,
    requestBody: bodyText(r.requestBody),
    responseBody: bodyText(r.responseBody),
    createdAt: new Date(r.createdAt).toISOString(),
  };
}

export function proxyDeps(svc: Services): RoutedProxyDeps {
  return {
    routing: {
      config: (orgId, slug) => svc.routing.configs.get(orgId, slug),
      credentialById: (orgId, id) => svc.credentials.get(orgId, id),
      credentialFor: (orgId, vendor) => svc.credentials.resolve(orgId, vendor),
      health: svc.routing.health,
    },
    resolveCredential: (orgId, vendor) => svc.credentials.resolve(orgId, vendor),
    // Serializing bodies and queueing the row happen after the response is on its way.
    log: (row) => setImmediate(() => svc.logs.enqueue(toStoreRow(row))),
    logBodies: (projectId) => (projectId ? (svc.projects.cached(projectId)?.settings.log_bodies ?? true) : true),
  };
}

const requestInfo = (req: FastifyRequest): ProxyRequestInfo => ({ principal: req.principal, requestId: req.svcId });

export async function familyRoutes(app: FastifyInstance): Promise<void> {
  const deps = proxyDeps(app.svc);
  await alphaRoutes(app, deps, requestInfo);
  await betaRoutes(app, deps, requestInfo);
}

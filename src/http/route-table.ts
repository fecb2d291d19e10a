// Registers the proxy routes from the one list of them (manage/proxy-paths.ts), so what fastify
// serves and what /openapi.yaml documents cannot part: each route file hands in its group's
// handlers by route name, and the type makes it name every route of the group.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { PROXY_PATHS, type ProxyGroup, type ProxyRouteNames } from '../manage/proxy-paths.ts';

/** Proxy paths take at most one parameter, `{id}`; on the other routes `params` is empty. */
export type ProxyRequest = FastifyRequest<{ Params: { id: string } }>;

export type ProxyHandler = (req: ProxyRequest, reply: FastifyReply) => Promise<unknown>;

export interface ProxyRouteSpec {
  handler: ProxyHandler;
  /** Overrides the gateway's body limit (multipart uploads). */
  bodyLimit?: number;
}

export type GroupHandlers<G extends ProxyGroup> = Record<ProxyRouteNames[G], ProxyHandler | ProxyRouteSpec>;

/** `{id}` (OpenAPI) -> `:id` (fastify). */
export function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * A route whose row says it takes a JSON body refuses a call without one as `empty_body`, not as a
 * complaint about the shape of a body the caller never sent. Checked in the handler rather than in
 * a preValidation hook: an async hook costs every call a promise and a hook-runner step.
 */
function requiringBody(handler: ProxyHandler): ProxyHandler {
  return (req, reply) => {
    if (req.body === undefined) throw new GatewayError('empty_body');
    return handler(req, reply);
  };
}

export function registerProxyGroup<G extends ProxyGroup>(
  app: FastifyInstance,
  group: G,
  handlers: GroupHandlers<G>,
): void {
  for (const row of PROXY_PATHS) {
    if (row.group !== group) continue;
    const given = handlers[row.route as ProxyRouteNames[G]];
    const spec: ProxyRouteSpec = typeof given === 'function' ? { handler: given } : given;
    const handler = row.jsonBody ? requiringBody(spec.handler) : spec.handler;
    app.route<{ Params: { id: string } }>({
      method: row.method,
      url: routerPath(row.path),
      handler,
      ...(spec.bodyLimit !== undefined ? { bodyLimit: spec.bodyLimit } : {}),
    });
  }
}

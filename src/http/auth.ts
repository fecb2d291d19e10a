// The API-key gate in front of every proxy and management route. The common case (a key already
// in memory) completes synchronously, with no promise and no database call.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal, PrincipalMirror } from '../live/principals.ts';
import { mayCallModels, modelCallRefusal } from '../manage/roles.ts';
import { sendCode, sendError } from './errors.ts';
import { admitSession, type SessionGate, sessionMayCall, sessionTokenOf } from './sso-session.ts';

const PROTECTED = ['/alpha/', '/beta/', '/manage/'];

export function requiresAuth(path: string): boolean {
  if (path === '/mcp' || path.startsWith('/mcp/') || path.startsWith('/mcp?')) return true;
  return PROTECTED.some((p) => path.startsWith(p) || path === p.slice(0, -1));
}

/** `Authorization: Bearer <key>` or `x-api-key: <key>`; both SDK families work unchanged. */
export function extractApiKey(headers: FastifyRequest['headers']): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m?.[1]) return m[1];
  }
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x.trim() !== '') return x.trim();
  return undefined;
}

function reject(reply: FastifyReply, message: string): void {
  sendCode(reply, 'invalid_api_key', { message });
}

/**
 * Why no key was found, in the caller's terms. A key sent without its `Bearer ` scheme is the
 * usual slip (curl -H "Authorization: $KEY"): saying "missing" would send the caller looking for
 * a key they did send. The header's value is never echoed (it is a secret).
 */
export function missingKeyMessage(headers: FastifyRequest['headers']): string {
  const auth = headers.authorization;
  const value = typeof auth === 'string' ? auth.trim() : '';
  if (value === '') return 'Missing API key: send "Authorization: Bearer <key>" or "x-api-key: <key>"';
  const parts = value.split(/\s+/);
  if (parts.length === 1 && parts[0].toLowerCase() === 'bearer')
    return 'The Authorization header says "Bearer" but no key follows it: send "Authorization: Bearer <key>"';
  if (parts.length === 1)
    return 'The Authorization header has no "Bearer " prefix: send "Authorization: Bearer <key>" or "x-api-key: <key>"';
  if (parts[0].toLowerCase() !== 'bearer')
    return 'The Authorization header uses a scheme other than Bearer: send "Authorization: Bearer <key>" or "x-api-key: <key>"';
  return 'The Authorization header holds more than "Bearer <key>": send exactly one key after "Bearer "';
}

/** A proxy route (family alpha or beta, root aliases already rewritten to them). */
function isProxyPath(path: string): boolean {
  return path.startsWith('/alpha/') || path.startsWith('/beta/') || path === '/alpha' || path === '/beta';
}

/**
 * Why a known key may not be used at `now` for `path`: expired, a rotated-out plaintext past its
 * grace, or a viewer calling a proxy route (viewers manage read-only and call no model).
 */
export function keyRefusal(p: Principal, now: number, path = ''): GatewayError | undefined {
  if (p.role !== undefined && !mayCallModels(p.role) && isProxyPath(path))
    return modelCallRefusal({ role: p.role, projectId: p.projectId });
  if (p.graceEndsMs != null && now >= p.graceEndsMs)
    return new GatewayError('invalid_api_key', {
      message: 'This API key was rotated and its grace period has ended; use the new key',
    });
  if (p.expiresAtMs != null && now >= p.expiresAtMs)
    return new GatewayError('api_key_expired', { vars: { key_id: p.keyId } });
  return undefined;
}

/**
 * The principal of a request whose key is already known and may call `path` now, or undefined
 * when admitting it needs more (a store lookup, a session, a refusal to write): the front door
 * then leaves the request to the hooks below, which answer every such case.
 */
export function admittedNow(
  principals: PrincipalMirror,
  headers: IncomingHttpHeaders,
  path: string,
): Principal | undefined {
  const key = extractApiKey(headers);
  if (key === undefined) return undefined;
  const found = principals.authenticate(key);
  if (found instanceof Promise) {
    // The hook's own lookup joins this one (the mirror shares a pending lookup per key).
    found.catch(() => undefined);
    return undefined;
  }
  if (found === undefined) return undefined;
  const now = Date.now();
  if (keyRefusal(found, now, path) !== undefined) return undefined;
  principals.noteUse(found, now);
  return found;
}

type OnRequest = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * Both the raw path and the matched route are checked. The raw path, on every request: unknown
 * paths under a protected prefix answer 401 before 404, so routes cannot be probed without a key.
 * The route, for a raw path the router matched to a protected route all the same (percent-encoded
 * letters, say): decided once per route when it is added, as a route-level hook, because reading
 * `request.routeOptions` builds and freezes an object on every call. Call before adding routes.
 */
export function registerAuth(app: FastifyInstance, principals: PrincipalMirror, sessions?: SessionGate): void {
  const gate = authGate(principals, sessions);
  app.addHook('onRequest', (request, reply, done) => {
    if (requiresAuth(request.url)) gate(request, reply, done);
    else done();
  });
  // Route hooks run after the global one: a request it already admitted passes straight through.
  const byRoute: OnRequest = (request, reply, done) => {
    if (request.principal != null) done();
    else gate(request, reply, done);
  };
  app.addHook('onRoute', (route) => {
    if (!requiresAuth(route.url)) return;
    const own = route.onRequest;
    route.onRequest = own === undefined ? [byRoute] : [byRoute, ...(Array.isArray(own) ? own : [own])];
  });
}

function authGate(principals: PrincipalMirror, sessions: SessionGate | undefined): OnRequest {
  return (request, reply, done) => {
    const rawPath = request.url;
    const key = extractApiKey(request.headers);
    if (key === undefined) {
      // A dashboard signed in through SSO sends its session cookie instead of a key.
      const token = sessions !== undefined && sessionMayCall(rawPath) ? sessionTokenOf(request) : undefined;
      if (sessions !== undefined && token !== undefined) {
        admitSession(sessions, token, request, reply, done);
        return;
      }
      reject(reply, missingKeyMessage(request.headers));
      return;
    }
    const found = principals.authenticate(key);
    if (found instanceof Promise) {
      found.then(
        (p) => admit(p, request, reply, done),
        (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
      );
    } else admit(found, request, reply, done);
  };

  function admit(
    p: Principal | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ) {
    if (!p) {
      reject(reply, 'Invalid API key');
      return;
    }
    const now = Date.now();
    const refusal = keyRefusal(p, now, request.url);
    if (refusal) {
      sendError(reply, refusal);
      return;
    }
    principals.noteUse(p, now);
    request.principal = p;
    done();
  }
}

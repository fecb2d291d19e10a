// The API-key gate in front of every proxy and management route. The common case (a key already
// in memory) completes synchronously, with no promise and no database call.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal, PrincipalMirror } from '../live/principals.ts';
import { sendCode, sendError } from './errors.ts';

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

/** Why a known key may not be used at `now` (expired, or a rotated-out plaintext past its grace). */
export function keyRefusal(p: Principal, now: number): GatewayError | undefined {
  if (p.graceEndsMs != null && now >= p.graceEndsMs)
    return new GatewayError('invalid_api_key', {
      message: 'This API key was rotated and its grace period has ended; use the new key',
    });
  if (p.expiresAtMs != null && now >= p.expiresAtMs)
    return new GatewayError('api_key_expired', { vars: { key_id: p.keyId } });
  return undefined;
}

export function registerAuth(app: FastifyInstance, principals: PrincipalMirror): void {
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    // Both the matched route and the raw path are checked: unknown paths under a protected prefix
    // answer 401 before 404, so routes cannot be probed without a key.
    const routePath = request.routeOptions.url;
    const rawPath = request.url;
    if (!(routePath !== undefined && requiresAuth(routePath)) && !requiresAuth(rawPath)) {
      done();
      return;
    }
    const key = extractApiKey(request.headers);
    if (key === undefined) {
      reject(reply, missingKeyMessage(request.headers));
      return;
    }
    const accept = (p: Principal | undefined): void => {
      if (!p) {
        reject(reply, 'Invalid API key');
        return;
      }
      const now = Date.now();
      const refusal = keyRefusal(p, now);
      if (refusal) {
        sendError(reply, refusal);
        return;
      }
      principals.noteUse(p, now);
      request.principal = p;
      done();
    };
    const found = principals.authenticate(key);
    if (found instanceof Promise) {
      found.then(accept, (err: unknown) => done(err instanceof Error ? err : new Error(String(err))));
    } else accept(found);
  });
}

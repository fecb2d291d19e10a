// Dashboard sessions made by single sign-on: an HttpOnly cookie holding a random token, resolved to
// a principal for the management API. The store is the truth (so a deactivation on one instance is
// seen by all); each instance remembers a lookup for at most a second, which bounds how long an ended
// session can still act here while keeping a page's burst of requests to one store read.
//
// Writes made with a session must echo the CSRF token from the readable `sy_csrf` cookie in the
// x-csrf-token header: another site can make the browser send the session cookie, but cannot read
// the token (SameSite=Lax already keeps the cookie off cross-site POSTs; the token guards the rest).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { ErrorCode } from '../errors/codes.ts';
import type { Principal } from '../live/principals.ts';
import type { UserRecord, UserStore } from '../store/users.ts';
import { sendCode } from './errors.ts';

export const SESSION_COOKIE = 'sy_session';
export const CSRF_COOKIE = 'sy_csrf';
export const CSRF_HEADER = 'x-csrf-token';
/** The longest an instance acts on a remembered lookup: the bound on "ends within a second". */
export const SESSION_LOOKUP_TTL_MS = 1000;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const newToken = (): string => randomBytes(32).toString('base64url');

interface Resolved {
  principal: Principal;
  csrfHash: string;
}

export interface StartedSession {
  token: string;
  csrf: string;
  expiresAt: Date;
}

export type SessionCheck = { ok: true; principal: Principal } | { ok: false; reason: ErrorCode };

// Typed as codes so the error registry's scan sees them produced here.
const SESSION_ENDED: ErrorCode = 'session_ended';
const CSRF_TOKEN_INVALID: ErrorCode = 'csrf_token_invalid';

export function principalOfUser(user: UserRecord): Principal {
  return {
    orgId: user.orgId,
    projectId: user.projectId,
    keyId: user.id,
    role: user.role,
    rateLimits: null,
    user: { id: user.id, name: user.name, email: user.email },
  };
}

/** The session token from the Cookie header, if there is one. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string' || !header.includes(SESSION_COOKIE)) return undefined;
  const token = parseCookie(header)[SESSION_COOKIE];
  return token !== undefined && token !== '' ? token : undefined;
}

export class SessionGate {
  readonly #store: UserStore;
  // lru-cache allocates its arrays for all `max` entries when made (~0.7 MB); a gateway whose
  // dashboard nobody signs in to never needs them.
  #recentCache: LRUCache<string, Resolved | false> | undefined;
  readonly #pending = new Map<string, Promise<Resolved | false>>();

  constructor(store: UserStore) {
    this.#store = store;
  }

  async start(user: UserRecord, ttlMs: number): Promise<StartedSession> {
    const token = newToken();
    const csrf = newToken();
    const expiresAt = new Date(Date.now() + ttlMs);
    await this.#store.createSession({
      userId: user.id,
      orgId: user.orgId,
      tokenHash: sha256(token),
      csrfHash: sha256(csrf),
      expiresAt: expiresAt.toISOString(),
    });
    return { token, csrf, expiresAt };
  }

  async end(token: string): Promise<void> {
    const hash = sha256(token);
    await this.#store.endSession(hash);
    this.#recentCache?.delete(hash);
  }

  /** Who the session is, and whether this request may act with it (a write needs the CSRF token). */
  async check(token: string, method: string, csrfHeader: string | undefined): Promise<SessionCheck> {
    const found = await this.#resolve(sha256(token));
    if (!found) return { ok: false, reason: SESSION_ENDED };
    if (!SAFE_METHODS.has(method) && !(csrfHeader !== undefined && sameHash(sha256(csrfHeader), found.csrfHash)))
      return { ok: false, reason: CSRF_TOKEN_INVALID };
    return { ok: true, principal: found.principal };
  }

  #resolve(hash: string): Resolved | false | Promise<Resolved | false> {
    const hit = this.#recentCache?.get(hash);
    if (hit !== undefined) return hit;
    let p = this.#pending.get(hash);
    if (!p) {
      p = this.#load(hash).finally(() => this.#pending.delete(hash));
      this.#pending.set(hash, p);
    }
    return p;
  }

  async #load(hash: string): Promise<Resolved | false> {
    const s = await this.#store.findSession(hash, new Date().toISOString());
    const resolved: Resolved | false = s?.user.active
      ? { principal: principalOfUser(s.user), csrfHash: s.csrfHash }
      : false;
    this.#recent().set(hash, resolved);
    return resolved;
  }

  #recent(): LRUCache<string, Resolved | false> {
    this.#recentCache ??= new LRUCache({ max: 20_000, ttl: SESSION_LOOKUP_TTL_MS });
    return this.#recentCache;
  }
}

/** Sessions act on the management API only: model calls and MCP clients use API keys. */
export function sessionMayCall(path: string): boolean {
  return path.startsWith('/manage/');
}

/** The auth hook's branch for a request that sent no API key but a session cookie. */
export function admitSession(
  gate: SessionGate,
  token: string,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const header = request.headers[CSRF_HEADER];
  gate.check(token, request.method, typeof header === 'string' ? header : undefined).then(
    (c) => {
      if (!c.ok) {
        sendCode(reply, c.reason);
        return;
      }
      request.principal = c.principal;
      done();
    },
    (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
  );
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Secure cookies need https; a gateway on plain http (a laptop, a test) would never get them back. */
function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

export function setSessionCookies(reply: FastifyReply, request: FastifyRequest, s: StartedSession): void {
  const secure = isHttps(request);
  const common = { path: '/', sameSite: 'lax' as const, secure, expires: s.expiresAt };
  reply.header('set-cookie', [
    stringifySetCookie(SESSION_COOKIE, s.token, { ...common, httpOnly: true }),
    // Readable by the dashboard's script, which echoes it on writes; useless to a site that cannot read it.
    stringifySetCookie(CSRF_COOKIE, s.csrf, common),
  ]);
}

export function clearSessionCookies(reply: FastifyReply, request: FastifyRequest): void {
  const gone = { path: '/', sameSite: 'lax' as const, secure: isHttps(request), expires: new Date(0) };
  reply.header('set-cookie', [
    stringifySetCookie(SESSION_COOKIE, '', { ...gone, httpOnly: true }),
    stringifySetCookie(CSRF_COOKIE, '', gone),
  ]);
}

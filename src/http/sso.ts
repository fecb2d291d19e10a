// Single sign-on for the dashboard: OpenID Connect authorization code flow with PKCE, through
// openid-client (discovery, the token exchange and every ID token check are the library's).
//
//   GET  /sso/status    whether SSO is on (the sign-in page shows its button only then)
//   GET  /sso/login     redirects to the provider; the PKCE verifier, state and nonce wait in a
//                       short-lived HttpOnly cookie, so the callback may land on any instance
//   GET  /sso/callback  exchanges the code, maps the claims to a role, records the user, starts a
//                       session and sends the browser to the dashboard
//   POST /sso/logout    ends the session (a write: it needs the CSRF token like any other)
//
// A failed sign-in goes back to the dashboard's sign-in page with the reason in `sso_error`.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type * as OidcClient from 'openid-client';
import type { OidcConfig } from '../config.ts';
import type { Services } from '../manage/services.ts';
import type { UserRecord } from '../store/users.ts';
import { sendCode } from './errors.ts';
import { mapClaims } from './sso-claims.ts';
import {
  CSRF_HEADER,
  clearSessionCookies,
  type SessionGate,
  sessionTokenOf,
  setSessionCookies,
} from './sso-session.ts';

const TX_COOKIE = 'sy_sso_tx';
const TX_MAX_AGE_S = 600;
const SIGN_IN_PAGE = '/ui/signin';
const AFTER_SIGN_IN = '/ui/overview';

interface PendingSignIn {
  verifier: string;
  state: string;
  nonce: string;
  returnTo: string;
}

/** Only a path inside the dashboard: anything else would make the callback an open redirect. */
function safeReturnTo(raw: unknown): string {
  return typeof raw === 'string' && /^\/ui\/[A-Za-z0-9/_\-.?=&%]*$/.test(raw) && !raw.includes('//')
    ? raw
    : AFTER_SIGN_IN;
}

function readPending(request: FastifyRequest): PendingSignIn | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  const raw = parseCookie(header)[TX_COOKIE];
  if (!raw) return undefined;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<PendingSignIn>;
    if (typeof v.verifier !== 'string' || typeof v.state !== 'string' || typeof v.nonce !== 'string') return undefined;
    return { verifier: v.verifier, state: v.state, nonce: v.nonce, returnTo: safeReturnTo(v.returnTo) };
  } catch {
    return undefined;
  }
}

function pendingCookie(request: FastifyRequest, value: string, maxAge: number): string {
  return stringifySetCookie(TX_COOKIE, value, {
    path: '/sso/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge,
  });
}

function redirectUrlOf(oidc: OidcConfig, request: FastifyRequest): string {
  return oidc.redirectUrl ?? `${request.protocol}://${request.host}/sso/callback`;
}

function failSignIn(reply: FastifyReply, request: FastifyRequest, message: string): FastifyReply {
  reply.header('set-cookie', pendingCookie(request, '', 0));
  return reply.redirect(`${SIGN_IN_PAGE}?sso_error=${encodeURIComponent(message)}`);
}

// openid-client and jose (~6 MB resident) load with the first sign-in, and never without SSO configured.
let library: Promise<typeof OidcClient> | undefined;
const oidcLibrary = (): Promise<typeof OidcClient> => {
  library ??= import('openid-client');
  return library;
};

/** The provider's metadata, read on first use and kept; a failed read is retried by the next sign-in. */
function providerConfig(oidc: OidcConfig): () => Promise<OidcClient.Configuration> {
  let found: Promise<OidcClient.Configuration> | undefined;
  return () => {
    found ??= oidcLibrary()
      .then((oidcClient) =>
        oidcClient.discovery(
          new URL(oidc.issuer),
          oidc.clientId,
          oidc.clientSecret ?? undefined,
          oidc.clientSecret === null ? oidcClient.None() : undefined,
          // config.ts admits plain http only for a provider on this machine.
          oidc.issuer.startsWith('http:') ? { execute: [oidcClient.allowInsecureRequests] } : undefined,
        ),
      )
      .catch((err: unknown) => {
        found = undefined;
        throw err;
      });
    return found;
  };
}

async function projectIdOf(svc: Services, orgId: string, ref: string): Promise<string | undefined> {
  if (ref.startsWith('proj_')) {
    const p = await svc.stores.projects.get(orgId, ref);
    return p && p.deletedAt === null ? p.id : undefined;
  }
  let afterId: string | undefined;
  for (;;) {
    const page = await svc.stores.projects.list(orgId, { afterId, limit: 200 });
    const hit = page.find((p) => p.slug === ref);
    if (hit) return hit.id;
    if (page.length < 200) return undefined;
    afterId = page[page.length - 1]?.id;
  }
}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function ssoRoutes(svc: Services, sessions: SessionGate): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    const oidc = svc.config.oidc;
    app.get('/sso/status', async () => ({ enabled: oidc !== null, login_url: oidc !== null ? '/sso/login' : null }));

    app.post('/sso/logout', async (request, reply) => {
      const token = sessionTokenOf(request);
      if (token !== undefined) {
        const header = request.headers[CSRF_HEADER];
        const check = await sessions.check(token, 'POST', typeof header === 'string' ? header : undefined);
        if (!check.ok && check.reason === 'csrf_token_invalid') return sendCode(reply, 'csrf_token_invalid');
        if (check.ok) await sessions.end(token);
      }
      clearSessionCookies(reply, request);
      return { signed_out: true };
    });

    if (oidc === null) {
      const off = async (_request: FastifyRequest, reply: FastifyReply) =>
        sendCode(reply, 'not_found', { message: 'Single sign-on is not configured (set SWITCHYARD_OIDC_ISSUER)' });
      app.get('/sso/login', off);
      app.get('/sso/callback', off);
      return;
    }
    const provider = providerConfig(oidc);

    app.get<{ Querystring: { return_to?: string } }>('/sso/login', async (request, reply) => {
      const oidcClient = await oidcLibrary();
      let config: OidcClient.Configuration;
      try {
        config = await provider();
      } catch (err) {
        svc.logger.warn({ err, issuer: oidc.issuer }, 'could not read the OpenID provider metadata');
        return failSignIn(reply, request, 'The identity provider could not be reached; try again shortly.');
      }
      const pending: PendingSignIn = {
        verifier: oidcClient.randomPKCECodeVerifier(),
        state: oidcClient.randomState(),
        nonce: oidcClient.randomNonce(),
        returnTo: safeReturnTo(request.query.return_to),
      };
      const url = oidcClient.buildAuthorizationUrl(config, {
        redirect_uri: redirectUrlOf(oidc, request),
        scope: 'openid profile email',
        code_challenge: await oidcClient.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      });
      const value = Buffer.from(JSON.stringify(pending)).toString('base64url');
      reply.header('set-cookie', pendingCookie(request, value, TX_MAX_AGE_S));
      return reply.redirect(url.href);
    });

    app.get('/sso/callback', async (request, reply) => {
      const pending = readPending(request);
      if (!pending)
        return failSignIn(reply, request, 'The sign-in took too long or was started elsewhere; start it again.');
      let claims: Record<string, unknown>;
      try {
        const oidcClient = await oidcLibrary();
        const config = await provider();
        const current = new URL(request.url, redirectUrlOf(oidc, request));
        const tokens = await oidcClient.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        claims = { ...(tokens.claims() ?? {}) };
      } catch (err) {
        svc.logger.warn({ err }, 'single sign-on callback refused');
        return failSignIn(reply, request, `The identity provider's answer was refused: ${reasonOf(err)}`);
      }
      const mapping = mapClaims(claims, oidc);
      if (!mapping.ok) return failSignIn(reply, request, mapping.message);
      const orgId = svc.bootstrap.orgId;
      let projectId: string | null = null;
      if (mapping.projectRef !== null) {
        const found = await projectIdOf(svc, orgId, mapping.projectRef);
        if (found === undefined)
          return failSignIn(
            reply,
            request,
            `Your account names project '${mapping.projectRef}', which this gateway does not have.`,
          );
        projectId = found;
      }
      const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
      const subject = str(claims.sub);
      if (subject === null) return failSignIn(reply, request, 'The identity provider sent no subject (sub) claim.');
      const user: UserRecord = await svc.stores.users.recordSignIn({
        orgId,
        issuer: str(claims.iss) ?? oidc.issuer,
        subject,
        email: str(claims.email),
        name: str(claims.name) ?? str(claims.preferred_username) ?? str(claims.email),
        role: mapping.role,
        projectId,
      });
      if (!user.active) return failSignIn(reply, request, 'This account was deactivated by an administrator.');
      const started = await sessions.start(user, oidc.sessionTtlMs);
      setSessionCookies(reply, request, started);
      reply.header('set-cookie', pendingCookie(request, '', 0));
      return reply.redirect(pending.returnTo);
    });
  };
}

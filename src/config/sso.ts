// Single sign-on settings (SWITCHYARD_OIDC_*, SWITCHYARD_SESSION_HOURS).
import { isRole, ROLES, type Role } from '../ports/roles.ts';
import { nonEmpty, parsePositive } from './parse.ts';

/** Single sign-on through an OpenID provider (SWITCHYARD_OIDC_*). */
export interface OidcConfig {
  /** The provider's issuer URL; its discovery document is read from `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** Null for a public client (PKCE alone proves the code's owner). */
  clientSecret: string | null;
  /** The ID token claim whose values pick the role (a string or an array of strings). */
  roleClaim: string;
  /** Claim value -> role; the most powerful role any value maps to wins, and no match refuses the sign-in. */
  roleMap: Record<string, Role>;
  /** An ID token claim naming the one project (id or slug) a user is bound to; null binds no one. */
  projectClaim: string | null;
  /** Where the provider sends the browser back; null derives `<scheme>://<host>/sso/callback` from the request. */
  redirectUrl: string | null;
  /** How long a dashboard session lasts after sign-in. */
  sessionTtlMs: number;
}

/** `value=role` pairs separated by commas, e.g. `sy-admins=admin,sy-readers=viewer`. */
function parseRoleMap(raw: string | null): Record<string, Role> {
  const name = 'SWITCHYARD_OIDC_ROLE_MAP';
  if (raw === null) throw new Error(`${name} must map at least one claim value to a role (e.g. "admins=admin")`);
  const map: Record<string, Role> = {};
  for (const pair of raw.split(',')) {
    const at = pair.lastIndexOf('=');
    const value = pair.slice(0, at).trim();
    const role = pair.slice(at + 1).trim();
    if (at <= 0 || value === '' || !isRole(role))
      throw new Error(
        `${name} entries must be claim-value=role with role one of ${ROLES.join(', ')}, got "${pair.trim()}"`,
      );
    map[value] = role;
  }
  return map;
}

export function parseOidc(env: NodeJS.ProcessEnv): OidcConfig | null {
  const issuer = nonEmpty(env.SWITCHYARD_OIDC_ISSUER);
  if (issuer === null) return null;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(`SWITCHYARD_OIDC_ISSUER must be a URL, got "${issuer}"`);
  }
  // Plain http lets anyone on the path forge the provider's answers; only a provider on this machine may use it.
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new Error('SWITCHYARD_OIDC_ISSUER must be an https:// URL (http:// only for a provider on localhost)');
  const clientId = nonEmpty(env.SWITCHYARD_OIDC_CLIENT_ID);
  if (clientId === null) throw new Error('SWITCHYARD_OIDC_CLIENT_ID is required when SWITCHYARD_OIDC_ISSUER is set');
  const redirectUrl = nonEmpty(env.SWITCHYARD_OIDC_REDIRECT_URL);
  if (redirectUrl !== null && !/^https?:\/\/[^/]+\/sso\/callback$/.test(redirectUrl))
    throw new Error(`SWITCHYARD_OIDC_REDIRECT_URL must be <scheme>://<host>/sso/callback, got "${redirectUrl}"`);
  return {
    issuer,
    clientId,
    clientSecret: nonEmpty(env.SWITCHYARD_OIDC_CLIENT_SECRET),
    roleClaim: nonEmpty(env.SWITCHYARD_OIDC_ROLE_CLAIM) ?? 'groups',
    roleMap: parseRoleMap(nonEmpty(env.SWITCHYARD_OIDC_ROLE_MAP)),
    projectClaim: nonEmpty(env.SWITCHYARD_OIDC_PROJECT_CLAIM),
    redirectUrl,
    sessionTtlMs:
      parsePositive(nonEmpty(env.SWITCHYARD_SESSION_HOURS), 'SWITCHYARD_SESSION_HOURS', 12, 'hours', false) * 3_600_000,
  };
}

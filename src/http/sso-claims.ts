// From the provider's ID token claims to what Switchyard grants: a role from the role claim through
// SWITCHYARD_OIDC_ROLE_MAP, and optionally a project from the project claim. Pure, so the rules are
// tested without a provider.
import type { OidcConfig } from '../config.ts';
import { outranks, type Role } from '../ports/roles.ts';

export type ClaimMapping = { ok: true; role: Role; projectRef: string | null } | { ok: false; message: string };

/** A claim's values as strings: providers send groups as an array, some as one string. */
function valuesOf(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  if (Array.isArray(claim)) return claim.filter((v): v is string => typeof v === 'string');
  return [];
}

export function mapClaims(
  claims: Record<string, unknown>,
  oidc: Pick<OidcConfig, 'roleClaim' | 'roleMap' | 'projectClaim'>,
): ClaimMapping {
  let role: Role | undefined;
  for (const v of valuesOf(claims[oidc.roleClaim])) {
    const mapped = Object.hasOwn(oidc.roleMap, v) ? oidc.roleMap[v] : undefined;
    // Someone in both an admins and a readers group is an admin: the most powerful mapping wins.
    if (mapped !== undefined && (role === undefined || outranks(mapped, role))) role = mapped;
  }
  if (role === undefined)
    return {
      ok: false,
      message: `Your account has no value in the '${oidc.roleClaim}' claim that this gateway maps to a role; ask an administrator to add you to a mapped group.`,
    };
  if (oidc.projectClaim === null) return { ok: true, role, projectRef: null };
  const project = valuesOf(claims[oidc.projectClaim])[0];
  return { ok: true, role, projectRef: project !== undefined && project !== '' ? project : null };
}

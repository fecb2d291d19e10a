// Who may do what (issue 33 item 2), for API keys and signed-in users alike: the roles, their
// order and the check. Imports nothing, so every layer (config, the key and user stores, the
// principal mirror, management, HTTP) can use it; src/manage/roles.ts re-exports it with the
// refusals (GatewayError) and the management-only rules, which is what management and HTTP import.

export const ROLES = ['admin', 'developer', 'viewer', 'inference'] as const;
export type Role = (typeof ROLES)[number];

/** What a management operation declares it needs: the least role, or `any` for every caller. */
export type RequiredRole = Role | 'any';
export const REQUIRED_ROLES: readonly RequiredRole[] = ['any', 'inference', 'viewer', 'developer', 'admin'];

/** The caller as the check sees it; a key's principal and a user's session both fit. */
export interface RoleHolder {
  role: Role;
  /** The one project the caller is bound to; null or absent for the whole organization. */
  projectId?: string | null;
}

// Management power only: calling models is a separate question (mayCallModels), which is why a
// viewer ranks above inference here yet may not call models.
const RANK: Record<Role, number> = { inference: 0, viewer: 1, developer: 2, admin: 3 };

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

/** True when `a` may do management things `b` may not (used to stop a caller granting more than it has). */
export function outranks(a: Role, b: Role): boolean {
  return RANK[a] > RANK[b];
}

/** What a key is when no role is given: org-wide keys admin, project keys inference (what they were before roles). */
export function defaultKeyRole(projectId: string | null): Role {
  return projectId === null ? 'admin' : 'inference';
}

export function mayCallModels(role: Role): boolean {
  return role !== 'viewer';
}

/**
 * Whether the holder meets an operation's requirement. An inference holder bound to a project
 * passes `inference` operations (its project's logs and analytics, as project keys always could);
 * an org-wide inference holder makes model calls only.
 */
export function roleAllows(holder: RoleHolder, needed: RequiredRole): boolean {
  if (needed === 'any') return true;
  if (holder.role === 'inference') return needed === 'inference' && holder.projectId != null;
  return RANK[holder.role] >= RANK[needed];
}

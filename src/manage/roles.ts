// Roles in the management API (issue 33 item 2): the one module management and HTTP code import,
// for keys and signed-in users alike. The vocabulary and the check itself live in
// src/ports/roles.ts, which imports nothing so that config and the stores can use it too; this
// file re-exports it and adds the refusals (403 insufficient_role naming the role needed), the gate
// every operation passes, and the rules that stop a caller handing out or touching more than it has.
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import { defaultKeyRole, outranks, type RequiredRole, type Role, type RoleHolder, roleAllows } from '../ports/roles.ts';
import type { Operation } from './operation.ts';

export {
  defaultKeyRole,
  isRole,
  mayCallModels,
  outranks,
  REQUIRED_ROLES,
  type RequiredRole,
  ROLES,
  type Role,
  type RoleHolder,
  roleAllows,
} from '../ports/roles.ts';

/** The role to name in a refusal: for an org-wide inference key, `inference` operations need viewer. */
function namedNeed(holder: RoleHolder, needed: Role): Role {
  return needed === 'inference' && holder.role === 'inference' ? 'viewer' : needed;
}

export function insufficientRole(holder: RoleHolder, needed: Role, message?: string): GatewayError {
  return new GatewayError('insufficient_role', {
    ...(message !== undefined ? { message } : {}),
    vars: { needed: namedNeed(holder, needed), role: holder.role },
  });
}

/** Throws 403 insufficient_role unless the holder meets `needed`. */
export function requireRole(holder: RoleHolder, needed: RequiredRole): void {
  if (needed !== 'any' && !roleAllows(holder, needed)) throw insufficientRole(holder, needed);
}

/** The refusal a viewer gets from a proxy route. */
export function modelCallRefusal(holder: RoleHolder): GatewayError {
  return insufficientRole(
    holder,
    'inference',
    `Calling models needs the 'inference', 'developer' or 'admin' role; this caller's role is '${holder.role}'`,
  );
}

/** A principal from authentication always carries its role; one rebuilt without it manages nothing. */
export function roleOf(principal: Pick<Principal, 'role'>): Role {
  return principal.role ?? 'inference';
}

export function holderOf(principal: Principal): RoleHolder {
  return { role: roleOf(principal), projectId: principal.projectId };
}

/** Runs before every operation, whatever its door (REST, MCP over HTTP or stdio). */
export function requireOperationRole(op: Pick<Operation, 'role'>, principal: Principal): void {
  requireRole(holderOf(principal), op.role);
}

/** A caller may give a key its own role or a lesser one, never more. */
export function requireMayGrant(holder: RoleHolder, role: Role): void {
  if (outranks(role, holder.role))
    throw insufficientRole(
      holder,
      role,
      `Giving a key the '${role}' role needs the '${role}' role; this caller's role is '${holder.role}'`,
    );
}

/**
 * Changing, rotating or revoking a key needs at least the key's role (rotating an admin key would
 * hand its power to whoever rotates it) and, for a caller bound to a project, the key's project.
 */
export function requireMayManageKey(holder: RoleHolder, key: { role: Role; projectId: string | null }): void {
  requireKeyProject(holder, key.projectId);
  if (outranks(key.role, holder.role))
    throw insufficientRole(
      holder,
      key.role,
      `This key has the '${key.role}' role; managing it needs the '${key.role}' role, and this caller's role is '${holder.role}'`,
    );
}

/** A caller bound to a project acts on that project's keys only. */
export function requireKeyProject(holder: RoleHolder, projectId: string | null): void {
  const own = holder.projectId ?? null;
  if (own !== null && projectId !== own)
    throw new GatewayError('project_out_of_scope', {
      message: `This caller is bound to project '${own}' and cannot manage keys of ${projectId === null ? 'the whole organization' : `project '${projectId}'`}`,
    });
}

/** The role a new key gets when the body names none: its scope's, but never more than the creator's. */
export function newKeyRole(holder: RoleHolder, projectId: string | null): Role {
  const role = defaultKeyRole(projectId);
  return outranks(role, holder.role) ? holder.role : role;
}

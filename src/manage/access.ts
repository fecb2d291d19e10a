// Management calls act for the caller's organization. A caller bound to one project (a project key,
// or a user mapped to a project) reaches that project's own resources only: its keys, routing
// configs and budgets. Organization-wide resources (providers, webhook endpoints, ...) stay with
// org-wide callers.

import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';

export function requireOrgKey(principal: Principal): string {
  if (principal.projectId !== null) {
    throw new GatewayError('insufficient_scope');
  }
  return principal.orgId;
}

/**
 * The caller's organization, when the resource (of project `projectId`, null for org-wide) is within
 * the caller's reach: always for an org-wide caller, only its own project's for a project-bound one.
 */
export function requireProjectReach(principal: Principal, projectId: string | null, what: string): string {
  const own = principal.projectId;
  if (own !== null && projectId !== own)
    throw new GatewayError('project_out_of_scope', {
      message: `This caller is bound to project '${own}' and cannot manage ${what} of ${projectId === null ? 'the whole organization' : `project '${projectId}'`}`,
    });
  return principal.orgId;
}

export function notFound(what: string, id: string): GatewayError {
  return new GatewayError('not_found', { vars: { what, id } });
}

/** The row when it exists and is not deleted; otherwise the 404 that names it. */
export function liveOr404<T extends { deletedAt: string | null }>(row: T | undefined, what: string, id: string): T {
  if (!row || row.deletedAt !== null) throw notFound(what, id);
  return row;
}

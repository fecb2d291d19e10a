// Management calls act for the caller's organization and need an org-wide key; project-scoped
// keys are for the proxy only.
import type { Principal } from '../live/principals.ts';
import { HttpError } from '../http/errors.ts';

export function requireOrgKey(principal: Principal): string {
  if (principal.projectId !== null) {
    throw new HttpError(403, 'This management operation needs an org-wide API key; this key is scoped to one project', {
      type: 'permission_error',
      code: 'insufficient_scope',
    });
  }
  return principal.orgId;
}

export function notFound(what: string, id: string): HttpError {
  return new HttpError(404, `No ${what} with id '${id}'`, { type: 'not_found_error', code: 'not_found' });
}

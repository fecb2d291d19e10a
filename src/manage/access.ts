// Management calls act for the caller's organization and need an org-wide key; project-scoped
// keys are for the proxy only.

import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';

export function requireOrgKey(principal: Principal): string {
  if (principal.projectId !== null) {
    throw new GatewayError('insufficient_scope');
  }
  return principal.orgId;
}

export function notFound(what: string, id: string): GatewayError {
  return new GatewayError('not_found', { vars: { what, id } });
}

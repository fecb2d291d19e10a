// The live state the pipeline reads, as views over the gateway's in-memory mirrors.
import type { LiveState } from '../pipeline/types.ts';
import type { Services } from './services.ts';

export function liveStateOf(svc: Pick<Services, 'credentials' | 'projects' | 'routing'>): LiveState {
  return {
    credentialById: (orgId, id) => svc.credentials.get(orgId, id),
    credentialsFor: (orgId, vendor) => svc.credentials.forVendor(orgId, vendor),
    config: (orgId, slug) => svc.routing.configs.get(orgId, slug),
    projectDeleted: (projectId) => svc.projects.cached(projectId)?.deleted === true,
    health: svc.routing.health,
  };
}

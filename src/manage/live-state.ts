// The live state the pipeline reads, as views over the gateway's in-memory mirrors.
import type { LiveState } from '../pipeline/types.ts';
import { overrideRates } from '../providers/catalog/price-override.ts';
import type { Services } from './services.ts';

export function liveStateOf(svc: Pick<Services, 'credentials' | 'projects' | 'routing' | 'models'>): LiveState {
  return {
    credentialById: (orgId, id) => svc.credentials.get(orgId, id),
    credentialsFor: (orgId, vendor) => svc.credentials.forVendor(orgId, vendor),
    config: (orgId, slug) => svc.routing.configs.get(orgId, slug),
    projectDeleted: (projectId) => svc.projects.cached(projectId)?.deleted === true,
    listsModels: (projectId) => svc.projects.cached(projectId)?.settings.list_models === true,
    health: svc.routing.health,
    modelAlias: (orgId, name) => svc.models.alias(orgId, name),
    priceOverride: priceOverrideOf(svc.models),
  };
}

/**
 * The one way a cost or an estimate learns an org's override: the stored rates as computeCost applies
 * them (cache rates filled in). The pipeline, budgets, batches, media and log views all ask this.
 */
export function priceOverrideOf(models: Pick<Services['models'], 'price'>): LiveState['priceOverride'] {
  return (orgId, vendor, model) => {
    const o = models.price(orgId, vendor, model);
    return o ? overrideRates(vendor, model, o) : undefined;
  };
}

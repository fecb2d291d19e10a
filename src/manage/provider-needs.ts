// Which live routing configs would lose their only way to reach a vendor if a credential went: a
// config names candidates either by credential id (checked separately) or by vendor, and the
// latter resolve to any active credential of that vendor in the organization.
import { compileStrategy, strategyName } from '../routing/normalize.ts';
import type { CredentialRecord } from '../store/credentials.ts';
import type { Services } from './services.ts';

export async function configsLeftWithoutVendor(
  svc: Services,
  orgId: string,
  cred: CredentialRecord,
): Promise<string[]> {
  const others = (await svc.stores.credentials.list(orgId)).filter(
    (p) => p.id !== cred.id && p.vendorId === cred.vendorId && p.status === 'active',
  );
  if (others.length > 0) return [];
  const needing: string[] = [];
  for (const c of await svc.stores.routingConfigs.listAllLive(orgId)) {
    if (c.projectId !== null && svc.projects.cached(c.projectId)?.deleted) continue;
    try {
      const refs = compileStrategy(strategyName(c.strategy), c.config).refs;
      if (refs.some((r) => r.vendor === cred.vendorId && r.credentialId === undefined)) needing.push(`@${c.slug}`);
    } catch {
      // A stored config that no longer compiles serves nothing, so it needs nothing.
    }
  }
  return needing;
}

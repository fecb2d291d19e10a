// First start: one organization, a `default` project and an org-wide admin key. When
// SWITCHYARD_ADMIN_KEY is set it is (re)registered on every start, so the env var stays the
// source of truth; a key that was explicitly revoked is not resurrected.
import type { Config } from '../config.ts';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import { newId } from '../util/ids.ts';
import type { Stores } from './index.ts';
import { DEFAULT_PROJECT_SETTINGS } from './projects.ts';

export interface BootstrapResult {
  orgId: string;
  /** True on the very first start. */
  created: boolean;
  /** Plaintext of an admin key generated now; shown once, never stored in clear. */
  generatedAdminKey: string | null;
}

async function ensureEnvAdminKey(stores: Stores, orgId: string, plaintext: string): Promise<void> {
  const hash = hashApiKey(plaintext);
  if (await stores.orgKeys.findByHash(hash)) return;
  await stores.orgKeys.createKey({
    id: newId('key'),
    orgId,
    projectId: null,
    name: 'admin (SWITCHYARD_ADMIN_KEY)',
    keyHash: hash,
    prefix: displayPrefix(plaintext),
  });
}

export async function bootstrap(stores: Stores, config: Pick<Config, 'adminKey'>): Promise<BootstrapResult> {
  const existing = await stores.orgKeys.firstOrg();
  if (existing) {
    if (config.adminKey !== null) await ensureEnvAdminKey(stores, existing.id, config.adminKey);
    return { orgId: existing.id, created: false, generatedAdminKey: null };
  }
  const org = await stores.orgKeys.createOrg({ id: newId('org'), name: 'Default organization' });
  await stores.projects.create({
    id: newId('proj'),
    orgId: org.id,
    name: 'Default',
    slug: 'default',
    description: 'Created on first start',
    settings: { ...DEFAULT_PROJECT_SETTINGS },
  });
  if (config.adminKey !== null) {
    await ensureEnvAdminKey(stores, org.id, config.adminKey);
    return { orgId: org.id, created: true, generatedAdminKey: null };
  }
  const plaintext = generateApiKey();
  await stores.orgKeys.createKey({
    id: newId('key'),
    orgId: org.id,
    projectId: null,
    name: 'admin',
    keyHash: hashApiKey(plaintext),
    prefix: displayPrefix(plaintext),
  });
  return { orgId: org.id, created: true, generatedAdminKey: plaintext };
}

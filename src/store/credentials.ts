// Provider credentials. The key is stored only as ciphertext; decryption happens in the
// credential mirror, never here, so this store can be logged and tested without secrets. Create,
// update (rotation) and delete publish a `credential` change.

import { nowIso } from '../util/time.ts';
import { type ChangePublisher, NO_CHANGES } from './changes.ts';
import type { Db } from './db.ts';
import { orgTable, type RowEvents } from './org-table.ts';
import { createRoutingConfigStore } from './routing-configs.ts';
import type { ProviderCredentialsTable } from './schema.ts';

export interface CredentialRecord {
  id: string;
  orgId: string;
  /** As sent by the caller (may be an alias such as `vendor_2`). */
  vendor: string;
  vendorId: string;
  name: string;
  baseUrl: string | null;
  keyCiphertext: string;
  weight: number;
  status: string;
  verifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export type NewCredential = Pick<
  CredentialRecord,
  'id' | 'orgId' | 'vendor' | 'vendorId' | 'name' | 'baseUrl' | 'keyCiphertext'
> & {
  /** Default 1. */
  weight?: number;
  /** Set when the key was checked with the vendor before it was stored. */
  verifiedAt?: string | null;
};

export interface CredentialPatch {
  name?: string;
  baseUrl?: string | null;
  keyCiphertext?: string;
  verifiedAt?: string;
  weight?: number;
}

export interface CredentialStore {
  create(p: NewCredential): Promise<CredentialRecord>;
  get(orgId: string, id: string): Promise<CredentialRecord | undefined>;
  /** Active credentials by id; `afterId`/`limit` page through them. */
  list(orgId: string, page?: { afterId?: string; limit?: number }): Promise<CredentialRecord[]>;
  /** One UPDATE, so a rotated key replaces the old one atomically. */
  update(orgId: string, id: string, patch: CredentialPatch): Promise<CredentialRecord | undefined>;
  softDelete(orgId: string, id: string): Promise<CredentialRecord | undefined>;
  changedSince(sinceIso: string): Promise<CredentialRecord[]>;
  /** All active credentials of every org, for warming the credential cache at start. */
  listAllActive(): Promise<CredentialRecord[]>;
  /** Ids of routing configs that reference the credential directly (routing configs arrive later). */
  referencedByConfigs(orgId: string, providerId: string): Promise<string[]>;
}

function toRecord(r: ProviderCredentialsTable): CredentialRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    vendor: r.vendor,
    vendorId: r.vendor_id,
    name: r.name,
    baseUrl: r.base_url,
    keyCiphertext: r.key_ciphertext,
    weight: Number(r.weight),
    status: r.status,
    verifiedAt: r.verified_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

/** What a provider event tells receivers: which credential, never its key. */
function eventData(r: ProviderCredentialsTable) {
  return { id: r.id, vendor: r.vendor, name: r.name };
}

export function createCredentialStore(db: Db, changes: ChangePublisher = NO_CHANGES): CredentialStore {
  const table = orgTable(db, 'provider_credentials', toRecord, (orgId, id) =>
    changes.publish({ topic: 'credential', id, orgId }),
  );
  const get = table.get;

  return {
    create(p) {
      const now = nowIso();
      const row: ProviderCredentialsTable = {
        id: p.id,
        org_id: p.orgId,
        vendor: p.vendor,
        vendor_id: p.vendorId,
        name: p.name,
        base_url: p.baseUrl,
        key_ciphertext: p.keyCiphertext,
        weight: p.weight ?? 1,
        status: 'active',
        verified_at: p.verifiedAt ?? null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      return table.insert(row, () => [{ orgId: p.orgId, type: 'provider.created', data: eventData(row) }]);
    },
    get,
    async list(orgId, page = {}) {
      let q = db
        .selectFrom('provider_credentials')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('deleted_at', 'is', null);
      if (page.afterId !== undefined) q = q.where('id', '>', page.afterId);
      if (page.limit !== undefined) q = q.limit(page.limit);
      const rows = await q.orderBy('id').execute();
      return rows.map(toRecord);
    },
    async update(orgId, id, patch) {
      const set: Partial<ProviderCredentialsTable> = {};
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.baseUrl !== undefined) set.base_url = patch.baseUrl;
      if (patch.keyCiphertext !== undefined) set.key_ciphertext = patch.keyCiphertext;
      if (patch.verifiedAt !== undefined) set.verified_at = patch.verifiedAt;
      if (patch.weight !== undefined) set.weight = patch.weight;
      // Renames and weight changes are not events; a new key is.
      const rotated: RowEvents<ProviderCredentialsTable> | undefined =
        patch.keyCiphertext === undefined
          ? undefined
          : (row: ProviderCredentialsTable) => [{ orgId, type: 'provider.rotated', data: eventData(row) }];
      // A deleted credential is answered as it is, not as unknown.
      return (await table.update(orgId, id, set, rotated)) ?? get(orgId, id);
    },
    async softDelete(orgId, id) {
      const deleted = await table.softDelete(
        orgId,
        id,
        (row) => [{ orgId, type: 'provider.deleted', data: eventData(row) }],
        { status: 'deleted' },
      );
      return deleted ?? get(orgId, id);
    },
    changedSince: table.changedSince,
    listAllActive: table.listAllLive,
    referencedByConfigs: (orgId, providerId) => createRoutingConfigStore(db).referencingCredential(orgId, providerId),
  };
}

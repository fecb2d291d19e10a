// Provider credentials. The key is stored only as ciphertext; decryption happens in the
// credential mirror, never here, so this store can be logged and tested without secrets. Create,
// update (rotation) and delete publish a `credential` change.

import { nowIso } from '../util/time.ts';
import { type ChangePublisher, NO_CHANGES } from './changes.ts';
import type { Db } from './db.ts';
import { appendEvents } from './outbox.ts';
import { createRoutingConfigStore } from './routing-configs.ts';
import type { ProviderCredentialsTable } from './schema.ts';

export interface ProviderRecord {
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

export type NewProvider = Pick<
  ProviderRecord,
  'id' | 'orgId' | 'vendor' | 'vendorId' | 'name' | 'baseUrl' | 'keyCiphertext'
> & {
  /** Default 1. */
  weight?: number;
  /** Set when the key was checked with the vendor before it was stored. */
  verifiedAt?: string | null;
};

export interface ProviderPatch {
  name?: string;
  baseUrl?: string | null;
  keyCiphertext?: string;
  verifiedAt?: string;
  weight?: number;
}

export interface ProviderStore {
  create(p: NewProvider): Promise<ProviderRecord>;
  get(orgId: string, id: string): Promise<ProviderRecord | undefined>;
  /** Active credentials by id; `afterId`/`limit` page through them. */
  list(orgId: string, page?: { afterId?: string; limit?: number }): Promise<ProviderRecord[]>;
  /** One UPDATE, so a rotated key replaces the old one atomically. */
  update(orgId: string, id: string, patch: ProviderPatch): Promise<ProviderRecord | undefined>;
  softDelete(orgId: string, id: string): Promise<ProviderRecord | undefined>;
  changedSince(sinceIso: string): Promise<ProviderRecord[]>;
  /** All active credentials of every org, for warming the credential cache at start. */
  listAllActive(): Promise<ProviderRecord[]>;
  /** Ids of routing configs that reference the credential directly (routing configs arrive later). */
  referencedByConfigs(orgId: string, providerId: string): Promise<string[]>;
}

function toRecord(r: ProviderCredentialsTable): ProviderRecord {
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

export function createProviderStore(db: Db, changes: ChangePublisher = NO_CHANGES): ProviderStore {
  const changed = (orgId: string, id: string) => changes.publish({ topic: 'credential', id, orgId });
  async function get(orgId: string, id: string): Promise<ProviderRecord | undefined> {
    const r = await db
      .selectFrom('provider_credentials')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toRecord(r) : undefined;
  }

  return {
    async create(p) {
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
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('provider_credentials').values(row).execute();
        await appendEvents(tx, [{ orgId: p.orgId, type: 'provider.created', data: eventData(row) }]);
      });
      await changed(p.orgId, p.id);
      return toRecord(row);
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
      const set: Partial<ProviderCredentialsTable> = { updated_at: nowIso() };
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.baseUrl !== undefined) set.base_url = patch.baseUrl;
      if (patch.keyCiphertext !== undefined) set.key_ciphertext = patch.keyCiphertext;
      if (patch.verifiedAt !== undefined) set.verified_at = patch.verifiedAt;
      if (patch.weight !== undefined) set.weight = patch.weight;
      const updated = await db.transaction().execute(async (tx) => {
        const row = await tx
          .updateTable('provider_credentials')
          .set(set)
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .returningAll()
          .executeTakeFirst();
        // Renames and weight changes are not events; a new key is.
        if (row && patch.keyCiphertext !== undefined) {
          await appendEvents(tx, [{ orgId, type: 'provider.rotated', data: eventData(row) }]);
        }
        return row !== undefined;
      });
      if (updated) await changed(orgId, id);
      return get(orgId, id);
    },
    async softDelete(orgId, id) {
      const now = nowIso();
      const deleted = await db.transaction().execute(async (tx) => {
        const row = await tx
          .updateTable('provider_credentials')
          .set({ deleted_at: now, updated_at: now, status: 'deleted' })
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .returningAll()
          .executeTakeFirst();
        if (row) await appendEvents(tx, [{ orgId, type: 'provider.deleted', data: eventData(row) }]);
        return row !== undefined;
      });
      if (deleted) await changed(orgId, id);
      return get(orgId, id);
    },
    async changedSince(sinceIso) {
      const rows = await db
        .selectFrom('provider_credentials')
        .selectAll()
        .where('updated_at', '>=', sinceIso)
        .execute();
      return rows.map(toRecord);
    },
    async listAllActive() {
      const rows = await db.selectFrom('provider_credentials').selectAll().where('deleted_at', 'is', null).execute();
      return rows.map(toRecord);
    },
    referencedByConfigs: (orgId, providerId) => createRoutingConfigStore(db).referencingCredential(orgId, providerId),
  };
}

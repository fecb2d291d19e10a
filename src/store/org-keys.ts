// Organizations and gateway API keys (hashed). The principal mirror reads `findByHash` once per
// unknown key, `findAuthRow` on a change event and `changedSince` on its refresh tick; nothing on the
// hot path awaits this store. Creating, updating and revoking keys publishes an `api_key` change.

import type { RateLimits } from '../ports/counters.ts';
import { defaultKeyRole, type Role } from '../ports/roles.ts';
import { nowIso } from '../util/time.ts';
import { type ApiKeyAuthRow, type ApiKeyRecord, jsonOrNull, toAuthRow, toRecord, withoutHash } from './api-key-rows.ts';
import { type ChangePublisher, NO_CHANGES } from './changes.ts';
import type { Db } from './db.ts';
import { appendEvents } from './outbox.ts';
import type { ApiKeysTable } from './schema.ts';

export type { ApiKeyAuthRow, ApiKeyRecord } from './api-key-rows.ts';

export interface Org {
  id: string;
  name: string;
  createdAt: string;
}

export interface NewApiKey extends ApiKeyLimits {
  id: string;
  orgId: string;
  projectId: string | null;
  name: string;
  keyHash: string;
  prefix: string;
  /** Default: the scope's (org-wide admin, project inference). */
  role?: Role;
}

/** What a key may do and until when: set at creation (default null each) and changed by a patch. */
interface ApiKeyLimits {
  /** null: no limits of the key's own. */
  rateLimits?: RateLimits | null;
  allowedModels?: string[] | null;
  allowedTools?: string[] | null;
  expiresAt?: string | null;
  metadata?: Record<string, string> | null;
}

/** Renames and limit changes are not domain events (nothing outside the gateway acts on them). */
export interface ApiKeyPatch extends ApiKeyLimits {
  name?: string;
  role?: Role;
}

export interface KeyRotation {
  keyHash: string;
  prefix: string;
  /** Until when the replaced plaintext keeps working; null ends it now. */
  previousExpiresAt: string | null;
}

export interface KeyListOptions {
  afterId?: string;
  /** Rows to fetch; callers pass page size + 1 to learn whether more exist. */
  limit: number;
  projectId?: string;
  includeRevoked?: boolean;
}

export interface OrgKeyStore {
  createOrg(org: { id: string; name: string }): Promise<Org>;
  firstOrg(): Promise<Org | undefined>;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  createKey(key: NewApiKey): Promise<ApiKeyRecord>;
  getKey(orgId: string, id: string): Promise<ApiKeyRecord | undefined>;
  findByHash(keyHash: string): Promise<ApiKeyAuthRow | undefined>;
  /** The key with its hash, revoked or not (change events name keys by id). */
  findAuthRow(orgId: string, id: string): Promise<ApiKeyAuthRow | undefined>;
  /** Rows whose updated_at >= sinceIso (inclusive, so a write in the same millisecond is not missed). */
  changedSince(sinceIso: string): Promise<ApiKeyAuthRow[]>;
  listKeys(orgId: string, opts: KeyListOptions): Promise<ApiKeyRecord[]>;
  /** Undefined when the org has no unrevoked key with the id. */
  updateKey(orgId: string, id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | undefined>;
  revokeKey(orgId: string, id: string): Promise<ApiKeyRecord | undefined>;
  /** Revokes every active key scoped to the project; returns how many were revoked. */
  revokeProjectKeys(orgId: string, projectId: string): Promise<number>;
  /** Replaces the key's hash, keeping the old one for the grace period. Undefined when not active. */
  rotateKey(orgId: string, id: string, rotation: KeyRotation): Promise<ApiKeyRecord | undefined>;
  /**
   * Records when keys were last used. Leaves updated_at alone: a use is not a change the mirrors
   * must reload, and polling would otherwise reread every busy key each tick.
   */
  touchKeys(uses: ReadonlyMap<string, string>): Promise<void>;
}

function rateLimitsText(limits: RateLimits | null | undefined): string | null {
  return limits === null || limits === undefined ? null : JSON.stringify(limits);
}

/** What an API key event tells receivers: never the key or its hash. */
function keyEventData(r: ApiKeysTable) {
  return { id: r.id, name: r.name, project_id: r.project_id };
}

export function createOrgKeyStore(db: Db, changes: ChangePublisher = NO_CHANGES): OrgKeyStore {
  const changed = (orgId: string, id: string) => changes.publish({ topic: 'api_key', id, orgId });
  async function authRow(orgId: string, id: string): Promise<ApiKeyAuthRow | undefined> {
    const r = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toAuthRow(r) : undefined;
  }

  /** Revokes the live keys of the org that `column` picks, with an api_key.revoked event each. */
  async function revokeWhere(orgId: string, column: 'id' | 'project_id', value: string): Promise<ApiKeysTable[]> {
    const now = nowIso();
    const revoked = await db.transaction().execute(async (tx) => {
      const rows = await tx
        .updateTable('api_keys')
        .set({ revoked_at: now, updated_at: now })
        .where('org_id', '=', orgId)
        .where(column, '=', value)
        .where('revoked_at', 'is', null)
        .returningAll()
        .execute();
      await appendEvents(
        tx,
        rows.map((r) => ({ orgId, type: 'api_key.revoked' as const, data: keyEventData(r) })),
      );
      return rows;
    });
    await Promise.all(revoked.map((r) => changed(orgId, r.id)));
    return revoked;
  }

  return {
    async createOrg(org) {
      const createdAt = nowIso();
      await db.insertInto('orgs').values({ id: org.id, name: org.name, created_at: createdAt }).execute();
      return { ...org, createdAt };
    },
    async firstOrg() {
      const r = await db.selectFrom('orgs').selectAll().orderBy('id').limit(1).executeTakeFirst();
      return r ? { id: r.id, name: r.name, createdAt: r.created_at } : undefined;
    },
    async getMeta(key) {
      const r = await db.selectFrom('switchyard_meta').select('value').where('key', '=', key).executeTakeFirst();
      return r?.value;
    },
    async setMeta(key, value) {
      await db
        .insertInto('switchyard_meta')
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
        .execute();
    },
    async createKey(k) {
      const now = nowIso();
      const row: ApiKeysTable = {
        id: k.id,
        org_id: k.orgId,
        project_id: k.projectId,
        name: k.name,
        key_hash: k.keyHash,
        prefix: k.prefix,
        rate_limits: rateLimitsText(k.rateLimits),
        created_at: now,
        updated_at: now,
        revoked_at: null,
        allowed_models: jsonOrNull(k.allowedModels),
        allowed_tools: jsonOrNull(k.allowedTools),
        expires_at: k.expiresAt ?? null,
        metadata: jsonOrNull(k.metadata),
        last_used_at: null,
        previous_key_hash: null,
        previous_key_expires_at: null,
        role: k.role ?? defaultKeyRole(k.projectId),
      };
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('api_keys').values(row).execute();
        await appendEvents(tx, [{ orgId: k.orgId, type: 'api_key.created', data: keyEventData(row) }]);
      });
      await changed(k.orgId, k.id);
      return toRecord(row);
    },
    async getKey(orgId, id) {
      const r = await authRow(orgId, id);
      return r ? withoutHash(r) : undefined;
    },
    findAuthRow: authRow,
    async findByHash(keyHash) {
      const r = await db
        .selectFrom('api_keys')
        .selectAll()
        .where((eb) => eb.or([eb('key_hash', '=', keyHash), eb('previous_key_hash', '=', keyHash)]))
        .executeTakeFirst();
      return r ? toAuthRow(r) : undefined;
    },
    async changedSince(sinceIso) {
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('updated_at', '>=', sinceIso)
        .orderBy('updated_at')
        .execute();
      return rows.map(toAuthRow);
    },
    async listKeys(orgId, opts) {
      let q = db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId);
      if (opts.afterId !== undefined) q = q.where('id', '>', opts.afterId);
      if (opts.projectId !== undefined) q = q.where('project_id', '=', opts.projectId);
      if (!opts.includeRevoked) q = q.where('revoked_at', 'is', null);
      const rows = await q.orderBy('id').limit(opts.limit).execute();
      return rows.map(toRecord);
    },
    async updateKey(orgId, id, patch) {
      const set: Partial<ApiKeysTable> = { updated_at: nowIso() };
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.role !== undefined) set.role = patch.role;
      if (patch.rateLimits !== undefined) set.rate_limits = rateLimitsText(patch.rateLimits);
      if (patch.allowedModels !== undefined) set.allowed_models = jsonOrNull(patch.allowedModels);
      if (patch.allowedTools !== undefined) set.allowed_tools = jsonOrNull(patch.allowedTools);
      if (patch.expiresAt !== undefined) set.expires_at = patch.expiresAt;
      if (patch.metadata !== undefined) set.metadata = jsonOrNull(patch.metadata);
      const row = await db
        .updateTable('api_keys')
        .set(set)
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      await changed(orgId, id);
      return toRecord(row);
    },
    async revokeKey(orgId, id) {
      await revokeWhere(orgId, 'id', id);
      const r = await authRow(orgId, id);
      return r ? withoutHash(r) : undefined;
    },
    async revokeProjectKeys(orgId, projectId) {
      return (await revokeWhere(orgId, 'project_id', projectId)).length;
    },
    async rotateKey(orgId, id, rotation) {
      const row = await db.transaction().execute(async (tx) => {
        const cur = await tx
          .selectFrom('api_keys')
          .select('key_hash')
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        if (!cur) return undefined;
        const keep = rotation.previousExpiresAt !== null;
        const updated = await tx
          .updateTable('api_keys')
          .set({
            key_hash: rotation.keyHash,
            prefix: rotation.prefix,
            previous_key_hash: keep ? cur.key_hash : null,
            previous_key_expires_at: rotation.previousExpiresAt,
            updated_at: nowIso(),
          })
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        if (!updated) return undefined;
        // The event names the key and when its old plaintext stops working, never either plaintext or hash.
        await appendEvents(tx, [
          {
            orgId,
            type: 'api_key.rotated',
            data: { ...keyEventData(updated), previous_key_expires_at: rotation.previousExpiresAt },
          },
        ]);
        return updated;
      });
      if (!row) return undefined;
      await changed(orgId, id);
      return toRecord(row);
    },
    async touchKeys(uses) {
      for (const [id, at] of uses) {
        await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
      }
    },
  };
}

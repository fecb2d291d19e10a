// Routing configs and their versions. Every change writes a new version row and moves the config's
// current pointer in one transaction; deletion is soft and frees the slug at once. Create, every new
// version (update, restore) and delete publish a `routing_config` change after the commit.

import { newId } from '../util/ids.ts';
import { fromJsonText, isRecord } from '../util/json.ts';
import { nowIso } from '../util/time.ts';
import { type ChangePublisher, NO_CHANGES } from './changes.ts';
import type { Db } from './db.ts';
import { appendEvents } from './outbox.ts';
import type { RoutingConfigsTable, RoutingConfigTables, RoutingConfigVersionsTable } from './routing-configs-schema.ts';

/** The content that each version carries. */
export interface RoutingConfigContent {
  name: string;
  strategy: string;
  config: Record<string, unknown>;
  embeddingDimensions: number | null;
}

export interface RoutingConfigVersionRecord extends RoutingConfigContent {
  id: string;
  configId: string;
  version: number;
  restoredFrom: number | null;
  createdAt: string;
}

/** A config with its current version's content. */
export interface RoutingConfigRecord extends RoutingConfigContent {
  id: string;
  orgId: string;
  projectId: string | null;
  slug: string;
  version: number;
  versionId: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface NewRoutingConfig extends RoutingConfigContent {
  orgId: string;
  projectId: string | null;
  slug: string;
}

export interface RoutingConfigListOptions {
  projectId?: string;
  afterId?: string;
  limit: number;
}

export interface RoutingConfigStore {
  /** Fails with a unique violation when a live config of the org already has the slug. */
  create(c: NewRoutingConfig): Promise<RoutingConfigRecord>;
  get(orgId: string, id: string): Promise<RoutingConfigRecord | undefined>;
  getBySlug(orgId: string, slug: string): Promise<RoutingConfigRecord | undefined>;
  list(orgId: string, opts: RoutingConfigListOptions): Promise<RoutingConfigRecord[]>;
  /** Writes a new version that becomes current; undefined when the config is unknown or deleted. */
  addVersion(
    orgId: string,
    id: string,
    content: RoutingConfigContent,
    restoredFrom?: number,
  ): Promise<RoutingConfigRecord | undefined>;
  softDelete(orgId: string, id: string): Promise<RoutingConfigRecord | undefined>;
  listVersions(orgId: string, id: string): Promise<RoutingConfigVersionRecord[] | undefined>;
  /** `versionRef` is a version id (`rcv_...`) or a version number. */
  getVersion(orgId: string, id: string, versionRef: string): Promise<RoutingConfigVersionRecord | undefined>;
  /** Live configs (all changed since the instant, deleted ones included), for cache refresh. */
  changedSince(sinceIso: string): Promise<RoutingConfigRecord[]>;
  /** Live configs of the org, for warming caches and reference checks. */
  listAllLive(orgId?: string): Promise<RoutingConfigRecord[]>;
  /** `@slug` of every live config whose current version names the provider credential. */
  referencingCredential(orgId: string, credentialId: string): Promise<string[]>;
}

/** Whether a config object names the credential under any `provider_credential_id` key, at any depth. */
export function mentionsCredential(v: unknown, credentialId: string): boolean {
  if (Array.isArray(v)) return v.some((x) => mentionsCredential(x, credentialId));
  if (!isRecord(v)) return false;
  for (const [k, x] of Object.entries(v)) {
    if ((k === 'provider_credential_id' || k === 'providerCredentialId') && x === credentialId) return true;
    if (mentionsCredential(x, credentialId)) return true;
  }
  return false;
}

function toVersion(v: RoutingConfigVersionsTable): RoutingConfigVersionRecord {
  const config = fromJsonText(v.config);
  return {
    id: v.id,
    configId: v.config_id,
    version: v.version,
    name: v.name,
    strategy: v.strategy,
    config: isRecord(config) ? config : {},
    embeddingDimensions: v.embedding_dimensions,
    restoredFrom: v.restored_from,
    createdAt: v.created_at,
  };
}

function toRecord(c: RoutingConfigsTable, v: RoutingConfigVersionsTable): RoutingConfigRecord {
  const ver = toVersion(v);
  return {
    id: c.id,
    orgId: c.org_id,
    projectId: c.project_id,
    slug: c.slug,
    name: ver.name,
    strategy: ver.strategy,
    config: ver.config,
    embeddingDimensions: ver.embeddingDimensions,
    version: ver.version,
    versionId: ver.id,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
    deletedAt: c.deleted_at,
  };
}

function versionRow(configId: string, version: number, c: RoutingConfigContent, restoredFrom: number | null) {
  return {
    id: newId('rcv'),
    config_id: configId,
    version,
    name: c.name,
    strategy: c.strategy,
    config: JSON.stringify(c.config),
    embedding_dimensions: c.embeddingDimensions,
    restored_from: restoredFrom,
    created_at: nowIso(),
  } satisfies RoutingConfigVersionsTable;
}

export function createRoutingConfigStore(baseDb: Db, changes: ChangePublisher = NO_CHANGES): RoutingConfigStore {
  const db = baseDb.withTables<RoutingConfigTables>();
  const changed = (orgId: string, id: string) => changes.publish({ topic: 'routing_config', id, orgId });
  type Q = typeof db;

  const joined = (q: Q) =>
    q
      .selectFrom('routing_configs as c')
      .innerJoin('routing_config_versions as v', (j) =>
        j.onRef('v.config_id', '=', 'c.id').onRef('v.version', '=', 'c.current_version'),
      )
      .select([
        'c.id as c_id',
        'c.org_id',
        'c.project_id',
        'c.slug',
        'c.current_version',
        'c.created_at as c_created_at',
        'c.updated_at',
        'c.deleted_at',
        'v.id as v_id',
        'v.config_id',
        'v.version',
        'v.name',
        'v.strategy',
        'v.config',
        'v.embedding_dimensions',
        'v.restored_from',
        'v.created_at as v_created_at',
      ]);

  type Row = Awaited<ReturnType<ReturnType<typeof joined>['execute']>>[number];
  const fromRow = (r: Row): RoutingConfigRecord =>
    toRecord({ ...r, id: r.c_id, created_at: r.c_created_at }, { ...r, id: r.v_id, created_at: r.v_created_at });

  async function get(orgId: string, id: string, q: Q = db): Promise<RoutingConfigRecord | undefined> {
    const r = await joined(q).where('c.org_id', '=', orgId).where('c.id', '=', id).executeTakeFirst();
    return r ? fromRow(r) : undefined;
  }

  return {
    async create(c) {
      const now = nowIso();
      const id = newId('rc');
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('routing_configs')
          .values({
            id,
            org_id: c.orgId,
            project_id: c.projectId,
            slug: c.slug,
            current_version: 1,
            created_at: now,
            updated_at: now,
            deleted_at: null,
          })
          .execute();
        await tx
          .insertInto('routing_config_versions')
          .values(versionRow(id, 1, c, null))
          .execute();
        await appendEvents(tx, [
          {
            orgId: c.orgId,
            type: 'routing_config.created',
            data: { id, slug: c.slug, version: 1, project_id: c.projectId },
          },
        ]);
      });
      await changed(c.orgId, id);
      return (await get(c.orgId, id))!;
    },
    get: (orgId, id) => get(orgId, id),
    async getBySlug(orgId, slug) {
      const r = await joined(db)
        .where('c.org_id', '=', orgId)
        .where('c.slug', '=', slug)
        .where('c.deleted_at', 'is', null)
        .executeTakeFirst();
      return r ? fromRow(r) : undefined;
    },
    async list(orgId, opts) {
      let q = joined(db).where('c.org_id', '=', orgId).where('c.deleted_at', 'is', null);
      if (opts.projectId !== undefined) q = q.where('c.project_id', '=', opts.projectId);
      if (opts.afterId !== undefined) q = q.where('c.id', '>', opts.afterId);
      const rows = await q.orderBy('c.id').limit(opts.limit).execute();
      return rows.map(fromRow);
    },
    async addVersion(orgId, id, content, restoredFrom) {
      const written = await db.transaction().execute(async (tx) => {
        // The first statement writes. On SQLite a transaction that reads first and writes later
        // fails at once with SQLITE_BUSY(_SNAPSHOT) when another connection (the request-log worker,
        // the CLI) commits in between, busy_timeout notwithstanding; writing first takes the lock
        // under busy_timeout instead. On PostgreSQL it locks the config row, so two concurrent
        // versions of one config queue up instead of computing the same next number.
        const claimed = await tx
          .updateTable('routing_configs')
          .set({ updated_at: nowIso() })
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) === 0) return undefined;
        const max = await tx
          .selectFrom('routing_config_versions')
          .select((eb) => eb.fn.max('version').as('m'))
          .where('config_id', '=', id)
          .executeTakeFirst();
        const next = Number(max?.m ?? 0) + 1;
        await tx
          .insertInto('routing_config_versions')
          .values(versionRow(id, next, content, restoredFrom ?? null))
          .execute();
        await tx.updateTable('routing_configs').set({ current_version: next }).where('id', '=', id).execute();
        // Read inside the transaction: the version this call wrote, even when another one follows at once.
        const record = await get(orgId, id, tx);
        if (record) {
          const data = { id, slug: record.slug, version: next };
          await appendEvents(tx, [
            restoredFrom === undefined
              ? { orgId, type: 'routing_config.updated', data }
              : { orgId, type: 'routing_config.restored', data: { ...data, restored_from_version: restoredFrom } },
          ]);
        }
        return record;
      });
      if (!written) return undefined;
      await changed(orgId, id);
      return written;
    },
    async softDelete(orgId, id) {
      const now = nowIso();
      const deleted = await db.transaction().execute(async (tx) => {
        const res = await tx
          .updateTable('routing_configs')
          .set({ deleted_at: now, updated_at: now })
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) === 0) return undefined;
        const record = await get(orgId, id, tx);
        if (record) {
          const data = { id, slug: record.slug, version: record.version };
          await appendEvents(tx, [{ orgId, type: 'routing_config.deleted', data }]);
        }
        return record;
      });
      if (!deleted) return undefined;
      await changed(orgId, id);
      return deleted;
    },
    async listVersions(orgId, id) {
      const c = await get(orgId, id);
      if (!c || c.deletedAt) return undefined;
      const rows = await db
        .selectFrom('routing_config_versions')
        .selectAll()
        .where('config_id', '=', id)
        .orderBy('version')
        .execute();
      return rows.map(toVersion);
    },
    async getVersion(orgId, id, versionRef) {
      const c = await get(orgId, id);
      if (!c || c.deletedAt) return undefined;
      let q = db.selectFrom('routing_config_versions').selectAll().where('config_id', '=', id);
      q = /^\d+$/.test(versionRef) ? q.where('version', '=', Number(versionRef)) : q.where('id', '=', versionRef);
      const r = await q.executeTakeFirst();
      return r ? toVersion(r) : undefined;
    },
    async changedSince(sinceIso) {
      const rows = await joined(db).where('c.updated_at', '>=', sinceIso).execute();
      return rows.map(fromRow);
    },
    async listAllLive(orgId) {
      let q = joined(db).where('c.deleted_at', 'is', null);
      if (orgId !== undefined) q = q.where('c.org_id', '=', orgId);
      return (await q.orderBy('c.id').execute()).map(fromRow);
    },
    async referencingCredential(orgId, credentialId) {
      // A cheap text filter first; the structural check rules out mere look-alikes.
      const rows = await joined(db)
        .where('c.org_id', '=', orgId)
        .where('c.deleted_at', 'is', null)
        // `_` in ids matches any one character here, which only widens the pre-filter.
        .where('v.config', 'like', `%${credentialId.replace(/%/g, '')}%`)
        .execute();
      return rows
        .map(fromRow)
        .filter((r) => mentionsCredential(r.config, credentialId))
        .map((r) => `@${r.slug}`);
    },
  };
}

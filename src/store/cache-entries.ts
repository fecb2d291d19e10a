// Semantic cache entries (migration 080). The in-process indexes answer look-ups; this table is what
// they are rebuilt from after a restart and what other instances load. Times are epoch ms. An entry
// is unique per (tenant, exact key): a fresh answer for the same request replaces the old one.
import type { JsonValue } from '../ir/types.ts';
import { newId } from '../util/ids.ts';
import { fromJsonText } from '../util/json.ts';
import type { Db } from './db.ts';

export type CacheEntriesTable = {
  id: string;
  project_id: string;
  tenant: string;
  partition_key: string;
  exact_key: string;
  model: string;
  embedder: string | null;
  /** base64 of the float32 vector; null when only the exact tier can serve the entry. */
  vector: string | null;
  /** JSON text of the answer in IR form. */
  response: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  created_at: number;
  last_used_at: number;
  expires_at: number;
};

type CacheTables = { cache_entries: CacheEntriesTable };

export interface CacheEntry {
  id: string;
  projectId: string;
  tenant: string;
  partitionKey: string;
  exactKey: string;
  model: string;
  embedder: string | null;
  vector: Float32Array | null;
  response: JsonValue;
  inputTokens: number;
  outputTokens: number;
  /** What the upstream call cost: what a hit saves. */
  costUsd: number;
  createdAt: number;
  lastUsedAt: number;
  expiresAt: number;
}

export type NewCacheEntry = Omit<CacheEntry, 'id' | 'lastUsedAt'>;

export interface CacheEntryStore {
  /** Inserts, or replaces the entry with the same (tenant, exact key); returns the stored entry's id. */
  put(e: NewCacheEntry): Promise<string>;
  /**
   * put() for many entries in one statement; returns the stored ids by `tenant + "\n" + exactKey`.
   * Of entries with the same key, the last one wins.
   */
  putMany(entries: readonly NewCacheEntry[]): Promise<Map<string, string>>;
  /** A live (unexpired) entry by its exact key. */
  getExact(tenant: string, exactKey: string, now: number): Promise<CacheEntry | undefined>;
  get(id: string): Promise<CacheEntry | undefined>;
  /** Live entries in id order, a page at a time: what the indexes are rebuilt from. */
  listLive(now: number, page: { afterId?: string; limit: number }): Promise<CacheEntry[]>;
  /** Marks hits (those of a sweep period): the entries are now the most recently used. */
  touchMany(ids: readonly string[], now: number): Promise<void>;
  remove(id: string): Promise<void>;
  /** Deletes the row only while it still holds the answer written at `createdAt` (not a newer one). */
  removeVersion(id: string, createdAt: number): Promise<void>;
  countLive(projectId: string, now: number): Promise<number>;
  /** Deletes every entry of the project (the purge operation); returns how many. */
  purgeProject(projectId: string): Promise<number>;
  /** Deletes up to `limit` expired entries; returns their ids (so indexes can drop them too). */
  sweepExpired(now: number, limit: number): Promise<string[]>;
  /** Deletes up to `limit` least recently used entries of the project beyond `keep`; returns their ids. */
  evictBeyond(projectId: string, keep: number, limit: number): Promise<string[]>;
}

export function encodeVector(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function decodeVector(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  // A copy: Buffer's pool offset need not be 4-byte aligned, which Float32Array requires.
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(copy.length / 4));
}

function toEntry(r: CacheEntriesTable): CacheEntry {
  return {
    id: r.id,
    projectId: r.project_id,
    tenant: r.tenant,
    partitionKey: r.partition_key,
    exactKey: r.exact_key,
    model: r.model,
    embedder: r.embedder,
    vector: r.vector === null ? null : decodeVector(r.vector),
    response: (fromJsonText(r.response) ?? null) as JsonValue,
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    costUsd: Number(r.cost_usd),
    createdAt: Number(r.created_at),
    lastUsedAt: Number(r.last_used_at),
    expiresAt: Number(r.expires_at),
  };
}

function toRow(e: NewCacheEntry): CacheEntriesTable {
  return {
    id: newId('ce'),
    project_id: e.projectId,
    tenant: e.tenant,
    partition_key: e.partitionKey,
    exact_key: e.exactKey,
    model: e.model,
    embedder: e.embedder,
    vector: e.vector === null ? null : encodeVector(e.vector),
    response: JSON.stringify(e.response),
    input_tokens: e.inputTokens,
    output_tokens: e.outputTokens,
    cost_usd: e.costUsd,
    created_at: e.createdAt,
    last_used_at: e.createdAt,
    expires_at: e.expiresAt,
  };
}

export function createCacheEntryStore(baseDb: Db): CacheEntryStore {
  const db = baseDb.withTables<CacheTables>();
  const idsOf = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

  const putMany: CacheEntryStore['putMany'] = async (entries) => {
    const byKey = new Map<string, CacheEntriesTable>();
    for (const e of entries) byKey.set(`${e.tenant}\n${e.exactKey}`, toRow(e));
    const out = new Map<string, string>();
    if (byKey.size === 0) return out;
    const stored = await db
      .insertInto('cache_entries')
      .values([...byKey.values()])
      // A fresh answer for the same request replaces the old one in place (the row keeps its id).
      .onConflict((oc) =>
        oc.columns(['tenant', 'exact_key']).doUpdateSet((eb) => ({
          project_id: eb.ref('excluded.project_id'),
          partition_key: eb.ref('excluded.partition_key'),
          model: eb.ref('excluded.model'),
          embedder: eb.ref('excluded.embedder'),
          vector: eb.ref('excluded.vector'),
          response: eb.ref('excluded.response'),
          input_tokens: eb.ref('excluded.input_tokens'),
          output_tokens: eb.ref('excluded.output_tokens'),
          cost_usd: eb.ref('excluded.cost_usd'),
          created_at: eb.ref('excluded.created_at'),
          last_used_at: eb.ref('excluded.last_used_at'),
          expires_at: eb.ref('excluded.expires_at'),
        })),
      )
      .returning(['id', 'tenant', 'exact_key'])
      .execute();
    for (const r of stored) out.set(`${r.tenant}\n${r.exact_key}`, r.id);
    return out;
  };

  return {
    putMany,

    async put(e) {
      const ids = await putMany([e]);
      const id = ids.get(`${e.tenant}\n${e.exactKey}`);
      if (id === undefined) throw new Error('cache entry upsert returned no row');
      return id;
    },

    async getExact(tenant, exactKey, now) {
      const r = await db
        .selectFrom('cache_entries')
        .selectAll()
        .where('tenant', '=', tenant)
        .where('exact_key', '=', exactKey)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return r ? toEntry(r) : undefined;
    },

    async get(id) {
      const r = await db.selectFrom('cache_entries').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? toEntry(r) : undefined;
    },

    async listLive(now, page) {
      let q = db.selectFrom('cache_entries').selectAll().where('expires_at', '>', now);
      if (page.afterId !== undefined) q = q.where('id', '>', page.afterId);
      return (await q.orderBy('id').limit(page.limit).execute()).map(toEntry);
    },

    async touchMany(ids, now) {
      // Bounded statements: SQLite caps the number of bound parameters.
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        await db.updateTable('cache_entries').set({ last_used_at: now }).where('id', 'in', chunk).execute();
      }
    },

    async remove(id) {
      await db.deleteFrom('cache_entries').where('id', '=', id).execute();
    },

    async removeVersion(id, createdAt) {
      await db.deleteFrom('cache_entries').where('id', '=', id).where('created_at', '=', createdAt).execute();
    },

    async countLive(projectId, now) {
      const r = await db
        .selectFrom('cache_entries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(r?.n ?? 0);
    },

    async purgeProject(projectId) {
      const res = await db.deleteFrom('cache_entries').where('project_id', '=', projectId).executeTakeFirst();
      return Number(res.numDeletedRows);
    },

    async sweepExpired(now, limit) {
      const ids = idsOf(
        await db.selectFrom('cache_entries').select('id').where('expires_at', '<=', now).limit(limit).execute(),
      );
      if (ids.length > 0) await db.deleteFrom('cache_entries').where('id', 'in', ids).execute();
      return ids;
    },

    async evictBeyond(projectId, keep, limit) {
      const ids = idsOf(
        await db
          .selectFrom('cache_entries')
          .select('id')
          .where('project_id', '=', projectId)
          .orderBy('last_used_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .offset(keep)
          .execute(),
      );
      if (ids.length > 0) await db.deleteFrom('cache_entries').where('id', 'in', ids).execute();
      return ids;
    },
  };
}

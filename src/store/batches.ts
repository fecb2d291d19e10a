// Batches and their items (migration 110), both families. The executor (src/batches/) claims items
// by shard: each shard is one job, held by one instance at a time, so an item marked `running` by
// anyone but the shard's current run was left by a run that died, and goes back to `pending`.
// Settling an item and counting it on its batch happen in one transaction, so the counts always
// match the items. Times are epoch ms.
import { type Kysely, sql, type Transaction, type Updateable } from 'kysely';
import type { JsonValue } from '../ir/types.ts';
import type { DomainEvent } from '../ports/domain-events.ts';
import {
  type BatchesTable,
  type BatchItemsTable,
  type BatchMode,
  type BatchPatch,
  type BatchRecord,
  COLUMN,
  fromItemRow,
  fromRow,
  type ItemOutcome,
  type ItemRecord,
  itemRow,
  JSON_FIELDS,
  json,
  type NewItem,
  type SettledState,
  toRow,
} from './batches-rows.ts';
import type { Db } from './db.ts';
import { type JobTables, jobRow, type NewJob } from './jobs.ts';
import { liveRows } from './org-rows.ts';
import { appendEvents } from './outbox.ts';
import type { Database } from './schema.ts';

export type {
  BatchFamily,
  BatchMode,
  BatchPatch,
  BatchRecord,
  ItemOutcome,
  ItemRecord,
  ItemState,
  NewItem,
  SettledState,
} from './batches-rows.ts';

type Tables = { batches: BatchesTable; batch_items: BatchItemsTable };
type Tx = Transaction<Database & Tables>;

export interface BatchListQuery {
  family: 'alpha' | 'beta';
  /** Null: the whole org (an org-wide key); else that project's batches only. */
  projectId: string | null;
  limit: number;
  /** Newest first; `after` pages to older batches, `before` to newer ones. */
  after?: string;
  before?: string;
}

export interface BatchStore {
  /** The batch, its items and the jobs that run it, in one transaction. */
  create(b: BatchRecord, items: readonly NewItem[], jobs?: readonly NewJob[]): Promise<void>;
  /** The org's batch, unless deleted. */
  get(orgId: string, id: string): Promise<BatchRecord | undefined>;
  /** For the executor, whatever the org. */
  getById(id: string): Promise<BatchRecord | undefined>;
  list(orgId: string, q: BatchListQuery): Promise<BatchRecord[]>;
  /**
   * Items found while validating, with the batch's total and its count of items stored settled
   * (invalid lines) recounted from the items: a re-run after a crash adds and counts nothing twice.
   */
  addItems(batchId: string, items: readonly NewItem[]): Promise<void>;
  /**
   * Applies `patch` only while the batch is in one of `from`, with `events` in the same transaction;
   * false when it was not (another run got there first).
   */
  transition(id: string, from: readonly string[], patch: BatchPatch, events?: readonly DomainEvent[]): Promise<boolean>;
  /** Gives the shard's `running` items back (their run died): the shard's new run holds the job now. */
  releaseShard(batchId: string, shard: number, shards: number): Promise<number>;
  /** Marks up to `limit` pending items of the shard `running` for `holder` and returns them. */
  claim(batchId: string, shard: number, shards: number, holder: string, limit: number): Promise<ItemRecord[]>;
  /** Puts a claimed item back to `pending` (to retry later); false when `holder` no longer holds it. */
  requeue(batchId: string, idx: number, holder: string): Promise<boolean>;
  /** Settles a claimed item and counts it on the batch; false when `holder` no longer holds it. */
  settle(batchId: string, idx: number, holder: string, outcome: ItemOutcome): Promise<boolean>;
  /** Settles every pending item of the shard (all shards: `shards` 1) as canceled or expired. */
  settleRemaining(batchId: string, shard: number, shards: number, state: 'canceled' | 'expired'): Promise<number>;
  /** Items not yet settled (pending or running). */
  unsettled(batchId: string): Promise<number>;
  /** Items in index order, a page at a time. */
  items(batchId: string, afterIdx: number, limit: number): Promise<ItemRecord[]>;
  markDeleted(orgId: string, id: string, at: number): Promise<boolean>;
  /** Batches of a mode and family in one of `statuses` (the pass-through poller's work). */
  listByStatus(mode: BatchMode, statuses: readonly string[], limit: number): Promise<BatchRecord[]>;
}

/** Rows per insert statement: well under both dialects' bound-parameter limits (14 columns each). */
const INSERT_CHUNK = 200;

export function createBatchStore(baseDb: Db): BatchStore {
  const db = baseDb.withTables<Tables>();
  const live = liveRows(baseDb, 'batches', fromRow);

  async function insertItems(q: Kysely<Database & Tables>, batchId: string, items: readonly NewItem[]) {
    const now = Date.now();
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      const rows = items.slice(i, i + INSERT_CHUNK).map((it) => itemRow(batchId, it, now));
      await q
        .insertInto('batch_items')
        .values(rows)
        .onConflict((oc) => oc.columns(['batch_id', 'idx']).doNothing())
        .execute();
    }
  }

  /** Adds a settled item's count, tokens and cost to its batch. */
  async function count(tx: Tx, batchId: string, state: SettledState, n: number, o?: ItemOutcome) {
    await tx
      .updateTable('batches')
      .set((eb) => ({
        [state]: eb(state, '+', n),
        input_tokens: eb('input_tokens', '+', o?.inputTokens ?? 0),
        output_tokens: eb('output_tokens', '+', o?.outputTokens ?? 0),
        cost_usd: eb('cost_usd', '+', o?.costUsd ?? 0),
      }))
      .where('id', '=', batchId)
      .execute();
  }

  const shardOf = (shards: number) => sql<number>`mod(idx, ${shards})`;

  return {
    async create(b, items, jobs = []) {
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('batches').values(toRow(b)).execute();
        await insertItems(tx, b.id, items);
        if (jobs.length > 0)
          await (tx as unknown as Kysely<Database & JobTables>).insertInto('jobs').values(jobs.map(jobRow)).execute();
      });
    },

    get: live.get,

    async getById(id) {
      const r = await db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
      return r === undefined ? undefined : fromRow(r);
    },

    async list(orgId, q) {
      let query = db
        .selectFrom('batches')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('family', '=', q.family)
        .where('deleted_at', 'is', null);
      if (q.projectId !== null) query = query.where('project_id', '=', q.projectId);
      // Ids are time-ordered (ulid), so the id alone orders and pages the list.
      if (q.before !== undefined) {
        const rows = await query.where('id', '>', q.before).orderBy('id', 'asc').limit(q.limit).execute();
        return rows.reverse().map(fromRow);
      }
      if (q.after !== undefined) query = query.where('id', '<', q.after);
      return (await query.orderBy('id', 'desc').limit(q.limit).execute()).map(fromRow);
    },

    async addItems(batchId, items) {
      await db.transaction().execute(async (tx) => {
        await insertItems(tx, batchId, items);
        const counted = (state?: string) => {
          let q = tx
            .selectFrom('batch_items')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('batch_id', '=', batchId);
          if (state !== undefined) q = q.where('state', '=', state);
          return q;
        };
        await tx
          .updateTable('batches')
          .set({ total: counted(), errored: counted('errored') })
          .where('id', '=', batchId)
          .execute();
      });
    },

    async transition(id, from, patch, events = []) {
      const set: Record<string, string | number | null> = {};
      for (const [k, v] of Object.entries(patch) as [keyof BatchPatch, BatchPatch[keyof BatchPatch]][]) {
        if (v === undefined) continue;
        set[COLUMN[k]] = JSON_FIELDS.has(k) ? json(v as JsonValue | null) : (v as string | number | null);
      }
      return db.transaction().execute(async (tx) => {
        const r = await tx
          .updateTable('batches')
          .set(set as Updateable<BatchesTable>)
          .where('id', '=', id)
          .where('status', 'in', [...from])
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) return false;
        if (events.length > 0) await appendEvents(tx, events);
        return true;
      });
    },

    async releaseShard(batchId, shard, shards) {
      const r = await db
        .updateTable('batch_items')
        .set({ state: 'pending', holder: null, lease_until: null })
        .where('batch_id', '=', batchId)
        .where('state', '=', 'running')
        .where(shardOf(shards), '=', shard)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    async claim(batchId, shard, shards, holder, limit) {
      return db.transaction().execute(async (tx) => {
        const rows = await tx
          .selectFrom('batch_items')
          .selectAll()
          .where('batch_id', '=', batchId)
          .where('state', '=', 'pending')
          .where(shardOf(shards), '=', shard)
          .orderBy('idx')
          .limit(limit)
          .execute();
        if (rows.length === 0) return [];
        const now = Date.now();
        await tx
          .updateTable('batch_items')
          .set((eb) => ({ state: 'running', holder, attempts: eb('attempts', '+', 1), updated_at: now }))
          .where('batch_id', '=', batchId)
          .where(
            'idx',
            'in',
            rows.map((r) => r.idx),
          )
          .where('state', '=', 'pending')
          .execute();
        return rows.map((r) => ({ ...fromItemRow(r), state: 'running' as const, attempts: r.attempts + 1 }));
      });
    },

    async requeue(batchId, idx, holder) {
      const r = await db
        .updateTable('batch_items')
        .set({ state: 'pending', holder: null, updated_at: Date.now() })
        .where('batch_id', '=', batchId)
        .where('idx', '=', idx)
        .where('state', '=', 'running')
        .where('holder', '=', holder)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async settle(batchId, idx, holder, o) {
      return db.transaction().execute(async (tx) => {
        const r = await tx
          .updateTable('batch_items')
          .set({
            state: o.state,
            holder: null,
            result: JSON.stringify(o.result),
            model: o.model ?? null,
            input_tokens: o.inputTokens ?? 0,
            output_tokens: o.outputTokens ?? 0,
            cost_usd: o.costUsd ?? 0,
            updated_at: Date.now(),
          })
          .where('batch_id', '=', batchId)
          .where('idx', '=', idx)
          .where('state', '=', 'running')
          .where('holder', '=', holder)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) return false;
        await count(tx, batchId, o.state, 1, o);
        return true;
      });
    },

    async settleRemaining(batchId, shard, shards, state) {
      return db.transaction().execute(async (tx) => {
        const r = await tx
          .updateTable('batch_items')
          .set({ state, holder: null, updated_at: Date.now() })
          .where('batch_id', '=', batchId)
          .where('state', '=', 'pending')
          .where(shardOf(shards), '=', shard)
          .executeTakeFirst();
        const n = Number(r.numUpdatedRows);
        if (n > 0) await count(tx, batchId, state, n);
        return n;
      });
    },

    async unsettled(batchId) {
      const r = await db
        .selectFrom('batch_items')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('batch_id', '=', batchId)
        .where('state', 'in', ['pending', 'running'])
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    async items(batchId, afterIdx, limit) {
      const rows = await db
        .selectFrom('batch_items')
        .selectAll()
        .where('batch_id', '=', batchId)
        .where('idx', '>', afterIdx)
        .orderBy('idx')
        .limit(limit)
        .execute();
      return rows.map(fromItemRow);
    },

    markDeleted: live.markDeleted,

    async listByStatus(mode, statuses, limit) {
      const rows = await db
        .selectFrom('batches')
        .selectAll()
        .where('mode', '=', mode)
        .where('status', 'in', [...statuses])
        .where('deleted_at', 'is', null)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(fromRow);
    },
  };
}

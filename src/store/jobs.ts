// The durable job queue's table (migration 050). Every claim takes a lease (an expiry in `run_at`)
// and increments `fence`; every later write of that holder names the fence it got, so a worker
// whose lease ran out and was taken over cannot overwrite the newer holder's result.
//
// Claiming differs per dialect because their locking does: PostgreSQL picks rows with
// SELECT ... FOR UPDATE SKIP LOCKED in a transaction, so concurrent instances split the due jobs
// instead of queueing on each other's row locks; SQLite has one writer at a time, so a single
// UPDATE ... WHERE id IN (SELECT ... LIMIT n) RETURNING is already atomic.
import { type Kysely, SqliteAdapter, sql } from 'kysely';
import type { JsonValue } from '../ir/types.ts';
import { compareStrings } from '../util/compare.ts';
import { newId } from '../util/ids.ts';
import { fromJsonText } from '../util/json.ts';
import { nowIso } from '../util/time.ts';
import type { Db } from './db.ts';
import type { Database } from './schema.ts';

export type JobStatus = 'queued' | 'running' | 'done' | 'dead';

export type JobsTable = {
  id: string;
  kind: string;
  /** JSON text. */
  payload: string;
  status: JobStatus;
  idempotency_key: string | null;
  /** Claims so far (a released lease gives its claim back). */
  attempts: number;
  max_attempts: number;
  /** Epoch ms: when a queued job is due; while it runs, when its lease expires. */
  run_at: number;
  /** Incremented on every claim: the holder's token. */
  fence: number;
  lease_owner: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
};

export type JobTables = { jobs: JobsTable };

export interface JobRecord {
  id: string;
  kind: string;
  payload: JsonValue;
  status: JobStatus;
  idempotencyKey: string | null;
  attempts: number;
  maxAttempts: number;
  runAt: number;
  fence: number;
  leaseOwner: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export const DEFAULT_MAX_ATTEMPTS = 8;

export interface NewJob {
  kind: string;
  payload: JsonValue;
  /** Epoch ms; default now. */
  runAt?: number;
  /** While a job of this kind with this key is queued or running, enqueue returns that job. */
  idempotencyKey?: string;
  maxAttempts?: number;
}

export interface ClaimRequest {
  /** Who holds the lease (for operators reading the table). */
  owner: string;
  /** Only jobs this worker has handlers for. */
  kinds: readonly string[];
  limit: number;
  leaseMs: number;
  now?: number;
}

/** One holding of a job: the fence its claim got. */
export interface JobLease {
  id: string;
  fence: number;
}

export interface JobStore {
  /** `created` is false when an unfinished job with the same (kind, idempotency key) was returned. */
  enqueue(job: NewJob): Promise<{ id: string; created: boolean }>;
  get(id: string): Promise<JobRecord | undefined>;
  /** Due queued jobs and running jobs whose lease expired, oldest first, now leased to `owner`. */
  claim(req: ClaimRequest): Promise<JobRecord[]>;
  /** Each returns false when the lease is no longer this holder's (expired and taken, or finished). */
  heartbeat(lease: JobLease, leaseMs: number, now?: number): Promise<boolean>;
  complete(lease: JobLease, now?: number): Promise<boolean>;
  /** `retryAt` (epoch ms) queues the job again; null dead-letters it. */
  fail(lease: JobLease, error: string, retryAt: number | null, now?: number): Promise<boolean>;
  /** Gives an unfinished job back at once (shutdown), without counting the interrupted attempt. */
  release(lease: JobLease, now?: number): Promise<boolean>;
  listDead(page?: { kind?: string; afterId?: string; limit?: number }): Promise<JobRecord[]>;
  /** Leases held now by owners whose name starts with `ownerPrefix`. */
  listHeld(ownerPrefix: string): Promise<Array<JobLease & { owner: string }>>;
  /** Deletes finished jobs: done ones finished before `doneBefore`, dead ones before `deadBefore` (ISO). */
  purge(doneBefore: string, deadBefore: string): Promise<number>;
  /** Ends a dead holder's lease now, so the next claim retakes the job (its attempt still counts). */
  expire(lease: JobLease, now?: number): Promise<boolean>;
}

// Errors can carry whole upstream bodies; the row keeps enough to diagnose.
const MAX_ERROR_LENGTH = 4000;
const newJobId = () => newId('job');

function toRecord(r: JobsTable): JobRecord {
  return {
    id: r.id,
    kind: r.kind,
    payload: (fromJsonText(r.payload) ?? null) as JsonValue,
    status: r.status,
    idempotencyKey: r.idempotency_key,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    runAt: Number(r.run_at),
    fence: Number(r.fence),
    leaseOwner: r.lease_owner,
    lastError: r.last_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
  };
}

/**
 * The row of a new queued job. Exported for writers that enqueue inside their own transaction (the
 * outbox): a job without an idempotency key is a plain insert.
 */
export function jobRow(job: NewJob): JobsTable {
  const at = nowIso();
  return {
    id: newJobId(),
    kind: job.kind,
    payload: JSON.stringify(job.payload ?? null),
    status: 'queued',
    idempotency_key: job.idempotencyKey ?? null,
    attempts: 0,
    max_attempts: Math.max(1, job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS),
    run_at: job.runAt ?? Date.now(),
    fence: 0,
    lease_owner: null,
    last_error: null,
    created_at: at,
    updated_at: at,
    finished_at: null,
  };
}

const UNFINISHED: JobStatus[] = ['queued', 'running'];

type Q = Kysely<Database & JobTables>;

export function createJobStore(baseDb: Db): JobStore {
  const db = baseDb.withTables<JobTables>();
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  const due = (q: Q, req: ClaimRequest, now: number) =>
    q
      .selectFrom('jobs')
      .select('id')
      .where('status', 'in', UNFINISHED)
      .where('run_at', '<=', now)
      .where('kind', 'in', [...req.kinds])
      .orderBy('run_at')
      .limit(req.limit);

  const leaseSet = (req: ClaimRequest, now: number) => ({
    status: 'running' as const,
    run_at: now + req.leaseMs,
    lease_owner: req.owner,
    updated_at: new Date(now).toISOString(),
  });

  // Writes of the current holder only: the fence must still be the one its claim got.
  const held = (lease: JobLease) =>
    db.updateTable('jobs').where('id', '=', lease.id).where('fence', '=', lease.fence).where('status', '=', 'running');
  const changed = (r: { numUpdatedRows: bigint }) => r.numUpdatedRows > 0n;

  const findUnfinished = (kind: string, key: string) =>
    db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', kind)
      .where('idempotency_key', '=', key)
      .where('status', 'in', UNFINISHED)
      .executeTakeFirst();

  return {
    async enqueue(job) {
      const row = jobRow(job);
      if (row.idempotency_key === null) {
        await db.insertInto('jobs').values(row).execute();
        return { id: row.id, created: true };
      }
      // The holder of the key may finish between a refused insert and the look-up; then try again.
      for (let round = 0; round < 5; round++) {
        const inserted = await db
          .insertInto('jobs')
          .values(row)
          .onConflict((oc) =>
            oc
              .columns(['kind', 'idempotency_key'])
              // Literal, not bound: PostgreSQL matches the partial index by its predicate at plan time.
              .where(sql<boolean>`status IN ('queued', 'running')`)
              .doNothing(),
          )
          .returning('id')
          .executeTakeFirst();
        if (inserted) return { id: inserted.id, created: true };
        const existing = await findUnfinished(job.kind, row.idempotency_key);
        if (existing) return { id: existing.id, created: false };
      }
      throw new Error(`job ${job.kind}/${row.idempotency_key}: idempotency key kept changing hands`);
    },

    async get(id) {
      const r = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? toRecord(r) : undefined;
    },

    async claim(req) {
      if (req.kinds.length === 0 || req.limit <= 0) return [];
      const now = req.now ?? Date.now();
      const take = (q: Q) =>
        q
          .updateTable('jobs')
          .set((eb) => ({ ...leaseSet(req, now), fence: eb('fence', '+', 1), attempts: eb('attempts', '+', 1) }));
      // Idle polls are the common case: a plain read finds nothing without taking SQLite's write
      // lock or opening a PostgreSQL transaction. The claim below re-checks every condition.
      if ((await due(db, req, now).limit(1).execute()).length === 0) return [];
      const rows = sqlite
        ? await take(db)
            .where('id', 'in', due(db, req, now))
            .returningAll()
            .execute()
        : await db.transaction().execute(async (trx) => {
            const picked = await due(trx, req, now).forUpdate().skipLocked().execute();
            if (picked.length === 0) return [];
            const ids = picked.map((p) => p.id);
            return take(trx).where('id', 'in', ids).returningAll().execute();
          });
      // RETURNING gives no order guarantee; ids sort by creation.
      return rows.map(toRecord).sort((a, b) => compareStrings(a.id, b.id));
    },

    async heartbeat(lease, leaseMs, now = Date.now()) {
      return changed(
        await held(lease)
          .set({ run_at: now + leaseMs, updated_at: new Date(now).toISOString() })
          .executeTakeFirst(),
      );
    },

    async complete(lease, now = Date.now()) {
      const at = new Date(now).toISOString();
      return changed(
        await held(lease)
          .set({ status: 'done', lease_owner: null, updated_at: at, finished_at: at })
          .executeTakeFirst(),
      );
    },

    async fail(lease, error, retryAt, now = Date.now()) {
      const at = new Date(now).toISOString();
      const last_error = error.slice(0, MAX_ERROR_LENGTH);
      const set =
        retryAt === null
          ? { status: 'dead' as const, lease_owner: null, last_error, updated_at: at, finished_at: at }
          : { status: 'queued' as const, run_at: retryAt, lease_owner: null, last_error, updated_at: at };
      return changed(await held(lease).set(set).executeTakeFirst());
    },

    async release(lease, now = Date.now()) {
      return changed(
        await held(lease)
          .set((eb) => ({
            status: 'queued',
            run_at: now,
            lease_owner: null,
            attempts: eb('attempts', '-', 1),
            updated_at: new Date(now).toISOString(),
          }))
          .executeTakeFirst(),
      );
    },

    async listHeld(ownerPrefix) {
      // Running jobs are few (a handful per instance): filtering here avoids escaping LIKE patterns.
      const rows = await db
        .selectFrom('jobs')
        .select(['id', 'fence', 'lease_owner'])
        .where('status', '=', 'running')
        .execute();
      return rows
        .filter((r) => r.lease_owner?.startsWith(ownerPrefix))
        .map((r) => ({ id: r.id, fence: Number(r.fence), owner: r.lease_owner ?? '' }));
    },

    async purge(doneBefore, deadBefore) {
      const res = await db
        .deleteFrom('jobs')
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'done'), eb('finished_at', '<', doneBefore)]),
            eb.and([eb('status', '=', 'dead'), eb('finished_at', '<', deadBefore)]),
          ]),
        )
        .executeTakeFirst();
      return Number(res.numDeletedRows);
    },

    async expire(lease, now = Date.now()) {
      return changed(
        await held(lease)
          .set({ run_at: now, updated_at: new Date(now).toISOString() })
          .executeTakeFirst(),
      );
    },

    async listDead(page = {}) {
      let q = db.selectFrom('jobs').selectAll().where('status', '=', 'dead');
      if (page.kind !== undefined) q = q.where('kind', '=', page.kind);
      if (page.afterId !== undefined) q = q.where('id', '>', page.afterId);
      const rows = await q
        .orderBy('id')
        .limit(Math.min(Math.max(page.limit ?? 100, 1), 1000))
        .execute();
      return rows.map(toRecord);
    },
  };
}

// The rollup writer of the query-builder path: PostgreSQL, and SQLite when the log worker is not
// running. `insertMany` (request-logs.ts) inserts with RETURNING id inside a transaction and hands
// this file only the rows that came back, so a replayed row adds nothing.
//
// PostgreSQL: several gateways may write the same rollup rows at once. Every row changes through
// one INSERT ... ON CONFLICT DO UPDATE that adds the counters and appends the histogram pairs
// (atomic per row), and every transaction takes its row locks in one global order (admission
// slots, then each rollup table in ROLLUP_TABLES order, rows sorted by key), so concurrent writers
// wait for each other instead of deadlocking. Admitting a new end user or tag set first locks the
// project's slot row for that day, which makes the bound exact across processes.
// SQLite: the transaction holds the database's write lock from its first INSERT, so histograms are
// read, merged and written back as in the log worker (rollups-sqlite.ts).
import { type Kysely, type RawBuilder, SqliteAdapter, sql, type Transaction } from 'kysely';
import {
  admittedKey,
  DIM_LIMITS,
  type DimCandidates,
  type RollupBatch,
  type RollupRow,
  type RollupTableSpec,
} from './rollups.ts';
import { addHist, encodeHist } from './rollups-histogram.ts';
import type { RollupTables } from './rollups-schema.ts';
import type { Database } from './schema.ts';

type Tx = Kysely<Database & RollupTables>;

// Stays well under PostgreSQL's limit on bound parameters per statement (14 columns x 500).
const UPSERT_CHUNK = 500;

async function knownValues(db: Tx, c: DimCandidates, values: string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('analytics_dim_values')
    .select('value')
    .where('org_id', '=', c.orgId)
    .where('project_id', '=', c.project)
    .where('day', '=', c.day)
    .where('dim', '=', c.dim)
    .where('value', 'in', values)
    .execute();
  return new Set(rows.map((r) => r.value));
}

// Admission is final for the day, so values found admitted are remembered; the cap bounds memory.
const ADMITTED_CACHE = 50_000;

/**
 * `committed`: values found in analytics_dim_values, i.e. admitted by a committed transaction
 * (values this transaction admits are not added: it may still roll back).
 */
async function admit(db: Tx, batch: RollupBatch, committed: Set<string>): Promise<Set<string>> {
  if (committed.size > ADMITTED_CACHE) committed.clear();
  const ok = new Set<string>();
  for (const c of batch.candidates()) {
    const key = (v: string) => admittedKey(c.orgId, c.project, c.day, c.dim, v);
    const unknown = c.values.filter((v) => !committed.has(key(v)));
    if (unknown.length === 0) continue;
    const known = await knownValues(db, c, unknown);
    for (const v of known) committed.add(key(v));
    let fresh = unknown.filter((v) => !known.has(v));
    if (fresh.length === 0) continue;
    // Locks the slot row until commit; the no-op update makes it return the current count.
    const slot = await db
      .insertInto('analytics_dim_slots')
      .values({ org_id: c.orgId, project_id: c.project, day: c.day, dim: c.dim, used: 0 })
      .onConflict((oc) =>
        oc
          .columns(['org_id', 'project_id', 'day', 'dim'])
          .doUpdateSet((eb) => ({ used: eb.ref('analytics_dim_slots.used') })),
      )
      .returning('used')
      .executeTakeFirstOrThrow();
    // Another writer may have admitted some of them while we waited for the lock.
    const meanwhile = await knownValues(db, c, fresh);
    for (const v of meanwhile) ok.add(key(v));
    fresh = fresh.filter((v) => !meanwhile.has(v));
    const admitted = fresh.slice(0, Math.max(0, DIM_LIMITS[c.dim] - Number(slot.used)));
    if (admitted.length === 0) continue;
    await db
      .insertInto('analytics_dim_values')
      .values(admitted.map((value) => ({ org_id: c.orgId, project_id: c.project, day: c.day, dim: c.dim, value })))
      .onConflict((oc) => oc.doNothing())
      .execute();
    await db
      .updateTable('analytics_dim_slots')
      .set((eb) => ({ used: eb('used', '+', admitted.length) }))
      .where('org_id', '=', c.orgId)
      .where('project_id', '=', c.project)
      .where('day', '=', c.day)
      .where('dim', '=', c.dim)
      .execute();
    for (const v of admitted) ok.add(key(v));
  }
  return ok;
}

// Appending a batch's pairs keeps the upsert cheap; past this length the pairs are summed per bin
// in SQL. Rows stay under the size where PostgreSQL moves values out of line (TOAST), which made
// every update of a busy row rewrite kilobytes; a compacted text is ~1 KB for a typical spread of
// latencies (at most ~420 bins).
const COMPACT_AT = 2000;

/** The new `hist` of an upsert: the stored pairs plus the batch's, summed per bin when long. */
function pgHist(table: string): RawBuilder<unknown> {
  const both = sql`${sql.ref(`${table}.hist`)} || ',' || excluded.hist`;
  return sql`CASE WHEN length(${sql.ref(`${table}.hist`)}) + length(excluded.hist) < ${sql.lit(COMPACT_AT)} THEN ${both}
    ELSE (SELECT string_agg(bin || ':' || n, ',' ORDER BY bin) FROM (
      SELECT split_part(p, ':', 1)::int AS bin, SUM(split_part(p, ':', 2)::bigint) AS n
      FROM unnest(string_to_array(${both}, ',')) AS p GROUP BY 1) AS merged) END`;
}

/** Column list, conflict target and SET clause of a rollup upsert; `hist` is the new histogram. */
function upsertParts(table: RollupTableSpec, hist: RawBuilder<unknown>) {
  return {
    cols: sql.join([...table.key, ...table.add, 'hist'].map((c) => sql.ref(c))),
    conflict: sql.join(table.key.map((c) => sql.ref(c))),
    set: sql.join([
      ...table.add.map((c) => sql`${sql.ref(c)} = ${sql.ref(`${table.name}.${c}`)} + ${sql.ref(`excluded.${c}`)}`),
      sql`hist = ${hist}`,
    ]),
  };
}

const valuesOf = (r: RollupRow) => sql`(${sql.join([...r.key, ...r.add, encodeHist(r.hist)])})`;

async function upsertPostgres(db: Tx, table: RollupTableSpec, rows: RollupRow[]): Promise<void> {
  const { cols, conflict, set } = upsertParts(table, pgHist(table.name));
  for (let i = 0; i < rows.length; i += UPSERT_CHUNK) {
    const values = sql.join(rows.slice(i, i + UPSERT_CHUNK).map(valuesOf));
    await sql`INSERT INTO ${sql.table(table.name)} (${cols}) VALUES ${values}
      ON CONFLICT (${conflict}) DO UPDATE SET ${set}`.execute(db);
  }
}

async function upsertSqlite(db: Tx, table: RollupTableSpec, rows: RollupRow[]): Promise<void> {
  const { cols, conflict, set } = upsertParts(table, sql`excluded.hist`);
  for (const r of rows) {
    const match = sql.join(
      table.key.map((c, i) => sql`${sql.ref(c)} = ${r.key[i]}`),
      sql` AND `,
    );
    const stored = await sql<{ hist: string }>`SELECT hist FROM ${sql.table(table.name)} WHERE ${match}`.execute(db);
    const hist = stored.rows[0]?.hist;
    if (hist !== undefined) addHist(r.hist, hist);
    await sql`INSERT INTO ${sql.table(table.name)} (${cols}) VALUES ${valuesOf(r)}
      ON CONFLICT (${conflict}) DO UPDATE SET ${set}`.execute(db);
  }
}

export interface RollupWriter {
  /** Writes the batch's rollups; `trx` must be the transaction that inserted its rows. */
  apply(trx: Transaction<Database>, batch: RollupBatch): Promise<void>;
}

/** One per store: it remembers which end users and tag sets are admitted. */
export function createRollupWriter(): RollupWriter {
  const committed = new Set<string>();
  return {
    async apply(trx, batch) {
      if (batch.size === 0) return;
      const db = trx.withTables<RollupTables>();
      const ok = await admit(db, batch, committed);
      const writes = batch.writes((orgId, project, day, dim, value) => {
        const k = admittedKey(orgId, project, day, dim, value);
        return committed.has(k) || ok.has(k);
      });
      const upsert = trx.getExecutor().adapter instanceof SqliteAdapter ? upsertSqlite : upsertPostgres;
      for (const { table, rows } of writes) await upsert(db, table, rows);
    },
  };
}

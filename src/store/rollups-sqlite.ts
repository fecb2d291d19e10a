// The rollup writer of the SQLite log worker: prepared statements run inside the worker's insert
// transaction (request-log-sqlite.ts), fed only rows whose INSERT reported a change. Like that
// file it loads no query builder, so the worker starts quickly. The transaction holds SQLite's
// write lock from its first INSERT on, so reading a row's histogram, merging and writing it back
// cannot interleave with another writer.

import {
  admittedKey,
  type Cell,
  DIM_LIMITS,
  histSql,
  ROLLUP_TABLES,
  RollupBatch,
  sourceReader,
  upsertSql,
} from './rollups.ts';
import { addHist, encodeHist } from './rollups-histogram.ts';

// Admission is final for the day, so admitted values can be remembered; the cap bounds memory.
const ADMITTED_CACHE = 50_000;

type SQLiteHandle = import('better-sqlite3').Database;

export interface SqliteRollups {
  /** A fresh batch for one transaction. */
  batch(): SqliteRollupBatch;
}

export interface SqliteRollupBatch {
  /** A row (positional values) that was just inserted. */
  add(values: readonly Cell[]): void;
  /** Writes the batch's rollups; call inside the transaction that inserted its rows. */
  apply(): void;
}

/** `columns`: the order of the positional values handed to `add`. */
export function sqliteRollups(sqlite: SQLiteHandle, columns: readonly string[]): SqliteRollups {
  const read = sourceReader(columns);
  const known = sqlite
    .prepare(
      'SELECT 1 FROM analytics_dim_values WHERE org_id = ? AND project_id = ? AND day = ? AND dim = ? AND value = ?',
    )
    .pluck();
  // The no-op update makes the upsert return the current count whether or not the row existed.
  const slots = sqlite
    .prepare(
      'INSERT INTO analytics_dim_slots (org_id, project_id, day, dim, used) VALUES (?, ?, ?, ?, 0) ON CONFLICT (org_id, project_id, day, dim) DO UPDATE SET used = analytics_dim_slots.used RETURNING used',
    )
    .pluck();
  const admit = sqlite.prepare(
    'INSERT INTO analytics_dim_values (org_id, project_id, day, dim, value) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const take = sqlite.prepare(
    'UPDATE analytics_dim_slots SET used = used + ? WHERE org_id = ? AND project_id = ? AND day = ? AND dim = ?',
  );
  const tables = ROLLUP_TABLES.map((t) => ({
    read: sqlite.prepare(histSql(t)).pluck(),
    write: sqlite.prepare(upsertSql(t)),
  }));
  /** Values found in analytics_dim_values, i.e. admitted by a committed transaction. */
  const committed = new Set<string>();

  function apply(batch: RollupBatch): void {
    if (batch.size === 0) return;
    if (committed.size > ADMITTED_CACHE) committed.clear();
    // Admitted by this transaction: remembered only through `committed` once a later look-up
    // finds them, so a rolled-back batch leaves nothing behind.
    const now = new Set<string>();
    for (const c of batch.candidates()) {
      const key = (v: string) => admittedKey(c.orgId, c.project, c.day, c.dim, v);
      const fresh = c.values.filter((v) => {
        const k = key(v);
        if (committed.has(k)) return false;
        if (known.get(c.orgId, c.project, c.day, c.dim, v) === undefined) return true;
        committed.add(k);
        return false;
      });
      if (fresh.length === 0) continue;
      const used = Number(slots.get(c.orgId, c.project, c.day, c.dim));
      const admitted = fresh.slice(0, Math.max(0, DIM_LIMITS[c.dim] - used));
      for (const v of admitted) {
        admit.run(c.orgId, c.project, c.day, c.dim, v);
        now.add(key(v));
      }
      if (admitted.length > 0) take.run(admitted.length, c.orgId, c.project, c.day, c.dim);
    }
    const writes = batch.writes((orgId, project, day, dim, value) => {
      const k = admittedKey(orgId, project, day, dim, value);
      return committed.has(k) || now.has(k);
    });
    writes.forEach(({ rows }, i) => {
      const t = tables[i];
      if (!t) return;
      for (const r of rows) {
        const stored = t.read.get(r.key) as string | undefined;
        if (stored !== undefined) addHist(r.hist, stored);
        t.write.run([...r.key, ...r.add, encodeHist(r.hist)]);
      }
    });
  }

  return {
    batch() {
      const batch = new RollupBatch();
      return { add: (values) => batch.add(read(values)), apply: () => apply(batch) };
    },
  };
}

// SQLite transactions begin with the write lock (BEGIN IMMEDIATE): a transaction that reads and then
// writes is never failed by another connection (the log worker thread, another worker process)
// committing in between. Begun deferred, its write found its snapshot stale and got SQLITE_BUSY at
// once, without the busy timeout.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/db.ts';
import { tempDataDir } from '../helpers/dialects.ts';

test('a read-then-write transaction is not failed by another connection committing meanwhile', async () => {
  const dataDir = tempDataDir();
  const { db } = await openDb(loadConfig({}, { dataDir, databaseUrl: null }));
  try {
    await sql`create table t (n integer)`.execute(db);
    await sql`insert into t values (0)`.execute(db);
    const other = new Database(join(dataDir, 'switchyard.db'));
    other.pragma('busy_timeout = 0');
    let otherWrote: boolean | undefined;
    await db.transaction().execute(async (tx) => {
      await sql`select count(*) from t`.execute(tx);
      try {
        other.exec('insert into t values (1)');
        otherWrote = true;
      } catch {
        // The transaction holds the write lock: the other writer waits (here: gives up at once).
        otherWrote = false;
      }
      await sql`insert into t values (2)`.execute(tx);
    });
    assert.equal(otherWrote, false);
    other.exec('insert into t values (1)');
    const rows = other.prepare('select n from t order by n').all() as Array<{ n: number }>;
    assert.deepEqual(
      rows.map((r) => r.n),
      [0, 1, 2],
    );
    other.close();
  } finally {
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

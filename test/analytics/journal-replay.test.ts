// A kill -9 after the rows were committed but before their journal segment was deleted: the next
// start replays the segment through the real writers (the SQLite log worker, the query-builder
// path on PostgreSQL). The rows are stored once and the rollups count them once.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { analyticsReport } from '../../src/logs/analytics-report.ts';
import { JournaledSink } from '../../src/logs/journal.ts';
import { WorkerLogWriter } from '../../src/logs/worker-writer.ts';
import { LogWriter, type RequestLogSink } from '../../src/logs/writer.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { T0, variedRows } from './fixtures.ts';

const silent = pino({ level: 'silent' });

/** A pid no process has (pids stay below 2^22 on Linux). */
function deadPid(): number {
  for (let pid = 4_194_303; ; pid--) {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
}

for (const d of await dialects()) {
  describe(`journal replay on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    before(async () => {
      t = await d.open();
    });
    after(async () => t?.dispose());

    function writer(): RequestLogSink {
      const inThread = new LogWriter(t.handle.stores.logs, silent);
      return d.name === 'sqlite' ? new WorkerLogWriter(t.handle.where, silent, inThread) : inThread;
    }

    test('rows replayed from the journal are not counted twice', async () => {
      const rows = variedRows(600, 11).map((r) => ({ ...r, orgId: 'org_j' }));
      const dir = join(t.config.dataDir, 'journal');
      const first = await JournaledSink.open(dir, writer(), silent);
      for (const r of rows) first.enqueue(r);
      await first.close();
      const q = {
        orgId: 'org_j',
        start: T0 - 2 * 86_400_000,
        end: T0 + 3 * 86_400_000,
        granularity: 'day' as const,
        groupBy: { kind: 'tag' as const, key: 'team' },
        tags: null,
        requestTypes: 'all' as const,
        includeComparison: false,
      };
      const committed = await analyticsReport(t.handle.stores.analytics, q);
      assert.equal(committed.totals.requests, 600);

      // What a process killed between the commit and the segment's deletion leaves behind.
      mkdirSync(dir, { recursive: true });
      const segment = join(dir, `journal-${deadPid()}-1000000000000000-000000.ndjson`);
      writeFileSync(segment, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
      const second = await JournaledSink.open(dir, writer(), silent);
      await second.close();
      assert.deepEqual(readdirSync(dir), [], 'the replayed segment was committed and deleted');
      assert.deepEqual(await analyticsReport(t.handle.stores.analytics, q), committed);
    });
  });
}

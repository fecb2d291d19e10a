// Issue 38 item 8: 205 cheap refused calls of one project used up the org's 200 tag sets for the
// day, and every later tag set of every project counted as `other`. The end-user and tag-set bounds
// are per project now: one project filling its own leaves the others theirs. Both writers (the
// query builder on both dialects, and the SQLite log worker's prepared statements).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { analyticsReport, type Report } from '../../src/logs/analytics-report.ts';
import { sqliteLogBatchInsert } from '../../src/store/request-log-sqlite.ts';
import { logValues, type RequestLogRow } from '../../src/store/request-logs.ts';
import { END_USER_LIMIT, TAGSET_LIMIT } from '../../src/store/rollups.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { logRow, T0 } from './fixtures.ts';

const DAY = T0 + 30 * 86_400_000;
const at = (i: number) => new Date(DAY + i * 1000).toISOString();

/** The flood: one project's refused calls, each with a new tag set and a new end user. */
const flood = (org: string) =>
  Array.from({ length: Math.max(TAGSET_LIMIT, END_USER_LIMIT) + 5 }, (_, i) =>
    logRow({
      orgId: org,
      projectId: 'proj_noisy',
      statusCode: 400,
      tags: { n: String(i) },
      endUser: `noisy-${i}`,
      createdAt: at(i),
    }),
  );

/** The other project's few calls, made after the flood. */
const quiet = (org: string) =>
  ['alpha', 'beta', 'gamma'].map((team, i) =>
    logRow({ orgId: org, projectId: 'proj_quiet', tags: { team }, endUser: `quiet-${team}`, createdAt: at(5000 + i) }),
  );

function report(t: TestDb, org: string, groupBy: { kind: 'tag'; key: string } | { kind: 'end_user' }): Promise<Report> {
  return analyticsReport(t.handle.stores.analytics, {
    orgId: org,
    projectId: 'proj_quiet',
    start: DAY,
    end: DAY + 86_400_000,
    granularity: 'day',
    groupBy,
    tags: null,
    includeComparison: false,
  });
}

async function assertQuietNamed(t: TestDb, org: string): Promise<void> {
  const byTeam = await report(t, org, { kind: 'tag', key: 'team' });
  assert.deepEqual(byTeam.series.map((p) => p.group).sort(), ['alpha', 'beta', 'gamma']);
  const byUser = await report(t, org, { kind: 'end_user' });
  assert.deepEqual(byUser.series.map((p) => p.group).sort(), ['quiet-alpha', 'quiet-beta', 'quiet-gamma']);
  // The noisy project is still bounded within itself.
  const noisy = await analyticsReport(t.handle.stores.analytics, {
    orgId: org,
    projectId: 'proj_noisy',
    start: DAY,
    end: DAY + 86_400_000,
    granularity: 'day',
    groupBy: { kind: 'tag', key: 'n' },
    tags: null,
    includeComparison: false,
  });
  assert.equal(noisy.series.filter((p) => p.group !== 'other').length, TAGSET_LIMIT);
  assert.equal(
    noisy.series.find((p) => p.group === 'other')?.requests,
    Math.max(TAGSET_LIMIT, END_USER_LIMIT) + 5 - TAGSET_LIMIT,
  );
}

for (const d of await dialects()) {
  describe(`analytics bounds per project on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    before(async () => {
      t = await d.open();
    });
    after(async () => {
      await t?.dispose();
    });

    test("one project's flood of tag sets and end users leaves another project's named", async () => {
      const rows: RequestLogRow[] = flood('org_flood');
      for (let i = 0; i < rows.length; i += 200) await t.handle.stores.logs.insertMany(rows.slice(i, i + 200));
      await t.handle.stores.logs.insertMany(quiet('org_flood'));
      await assertQuietNamed(t, 'org_flood');
    });

    if (d.name === 'sqlite') {
      test('the log worker path bounds per project too', async () => {
        const sqlite = new SQLite(t.handle.where);
        try {
          const insert = sqliteLogBatchInsert(sqlite);
          const values = [...flood('org_worker'), ...quiet('org_worker')].map(logValues);
          for (let i = 0; i < values.length; i += 200) insert(values.slice(i, i + 200));
        } finally {
          sqlite.close();
        }
        await assertQuietNamed(t, 'org_worker');
      });
    }
  });
}

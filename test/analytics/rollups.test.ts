// The analytics report from rollups against an exact computation over the same rows, on every
// dialect: every group_by, the tags filter, day buckets with partial edge days, comparison periods,
// percentiles within 2%, replayed rows counted once, the cardinality bounds, and the request types
// a report counts (inference by default, others by name).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { analyticsReport, type Granularity, type GroupBy, type Report } from '../../src/logs/analytics-report.ts';
import { INFERENCE_REQUEST_TYPES, type RequestTypeFilter } from '../../src/logs/report-request-types.ts';
import { sqliteLogBatchInsert } from '../../src/store/request-log-sqlite.ts';
import { logValues } from '../../src/store/request-logs.ts';
import { END_USER_LIMIT, TAGSET_LIMIT } from '../../src/store/rollups.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { assertMatchesExact, type ExactQuery, logRow, T0, variedRows } from './fixtures.ts';

const HOUR_MS = 3_600_000;
const GROUPS: (GroupBy | null)[] = [
  null,
  { kind: 'model' },
  { kind: 'provider' },
  { kind: 'project' },
  { kind: 'end_user' },
  { kind: 'request_type' },
  { kind: 'tag', key: 'team' },
  { kind: 'tag', key: 'env' },
];
const FILTERS: (Record<string, string> | null)[] = [null, { team: 'a' }, { team: 'a', env: 'prod' }];
// Not aligned to hours or days: the window widens to whole hours and day buckets have partial edges.
const START = T0 - 20 * HOUR_MS + 30 * 60_000;
const END = T0 + 50 * HOUR_MS + 10 * 60_000;

const rows = variedRows(3000);
/** Reports per dialect, compared at the end. */
const byDialect = new Map<string, string[]>();

function query(over: Partial<ExactQuery> = {}): ExactQuery {
  return { orgId: 'org_a', start: START, end: END, granularity: 'hour', groupBy: null, tags: null, ...over };
}

function report(t: TestDb, q: ExactQuery, includeComparison = false): Promise<Report> {
  return analyticsReport(t.handle.stores.analytics, { ...q, includeComparison });
}

const label = (q: ExactQuery) =>
  `${q.granularity} group=${q.groupBy ? JSON.stringify(q.groupBy) : '-'} tags=${JSON.stringify(q.tags)} project=${q.projectId ?? '-'} types=${JSON.stringify(q.requestTypes ?? 'default')}`;

for (const d of await dialects()) {
  describe(`analytics rollups on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    const seen: string[] = [];
    before(async () => {
      t = await d.open();
      // Several batches, like the writer's.
      for (let i = 0; i < rows.length; i += 700) await t.handle.stores.logs.insertMany(rows.slice(i, i + 700));
    });
    after(async () => {
      byDialect.set(d.name, seen);
      await t?.dispose();
    });

    for (const granularity of ['hour', 'day'] as Granularity[]) {
      test(`every group_by and tags filter, ${granularity} buckets, match the exact computation`, async () => {
        for (const groupBy of GROUPS) {
          for (const tags of FILTERS) {
            const q = query({ granularity, groupBy, tags });
            const r = await report(t, q);
            assertMatchesExact(r, rows, q, label(q));
            seen.push(JSON.stringify(r));
          }
        }
      });
    }

    test('a project filter, and another org sees none of these rows', async () => {
      for (const groupBy of [null, { kind: 'model' } as GroupBy, { kind: 'end_user' } as GroupBy]) {
        const q = query({ projectId: 'proj_2', groupBy, granularity: 'day' });
        assertMatchesExact(await report(t, q), rows, q, label(q));
      }
      const other = query({ orgId: 'org_b', groupBy: { kind: 'tag', key: 'team' } });
      assertMatchesExact(await report(t, other), rows, other, 'org_b');
      const none = await report(t, query({ orgId: 'org_nobody' }));
      assert.equal(none.totals.requests, 0);
      assert.equal(none.series.length, 71, 'the ungrouped series has every hour of the widened window');
      assert.ok(none.series.every((p) => p.requests === 0 && p.p50_latency_ms === null));
    });

    test('by default only inference counts; request_type names what else to count', async () => {
      const filters: RequestTypeFilter[] = [
        'all',
        ['batch_retrieve'],
        ['inference', 'file_list'],
        ['file_list', 'response_retrieve'],
        ['no_such_type'],
      ];
      const groups: (GroupBy | null)[] = [null, { kind: 'model' }, { kind: 'request_type' }, { kind: 'end_user' }];
      for (const requestTypes of filters) {
        for (const groupBy of groups) {
          for (const tags of [null, { team: 'a' }]) {
            const q = query({ granularity: 'day', groupBy, tags, requestTypes });
            assertMatchesExact(await report(t, q), rows, q, label(q));
          }
        }
      }
      const inWindow = rows.filter((r) => {
        const at = Date.parse(r.createdAt);
        return (
          r.orgId === 'org_a' && at >= Math.floor(START / HOUR_MS) * HOUR_MS && at < Math.ceil(END / HOUR_MS) * HOUR_MS
        );
      });
      const polls = inWindow.filter((r) => !INFERENCE_REQUEST_TYPES.includes(r.requestType)).length;
      assert.ok(polls > 0, 'the fixture has polls and listings');
      const all = await report(t, query({ requestTypes: 'all' }));
      const byDefault = await report(t, query());
      assert.equal(all.totals.requests - byDefault.totals.requests, polls);
      assert.deepEqual(byDefault.request_types, INFERENCE_REQUEST_TYPES);
      assert.equal(all.request_types, null);
      const byType = await report(t, query({ groupBy: { kind: 'request_type' } }));
      const types = new Set(byType.series.map((p) => p.group));
      assert.deepEqual([...types].sort(), ['batch_execution', 'chat_completion', 'embedding', 'message']);
    });

    test('include_comparison adds the period of equal length just before', async () => {
      const q = query({ start: T0, end: T0 + 24 * HOUR_MS, groupBy: { kind: 'model' } });
      const r = await report(t, q, true);
      assertMatchesExact(r, rows, q, 'current');
      assert.ok(r.comparison);
      assert.equal(r.comparison.start, new Date(T0 - 24 * HOUR_MS).toISOString());
      assert.equal(r.comparison.end, new Date(T0).toISOString());
      const before = { ...q, start: T0 - 24 * HOUR_MS, end: T0 };
      assertMatchesExact({ ...r, ...r.comparison }, rows, before, 'comparison');
      assert.ok(r.comparison.totals.requests > 0);
    });

    test('a replayed batch is not counted twice', async () => {
      const q = query({ groupBy: { kind: 'end_user' }, granularity: 'day' });
      const beforeReplay = JSON.stringify(await report(t, q));
      await t.handle.stores.logs.insertMany(rows.slice(0, 900));
      await t.handle.stores.logs.insertMany([...rows.slice(1000, 1100), ...rows.slice(2000, 2100)]);
      assert.equal(JSON.stringify(await report(t, q)), beforeReplay);
      // A batch mixing new and replayed rows counts only the new ones.
      const fresh = logRow({ orgId: 'org_replay', createdAt: new Date(T0).toISOString() });
      await t.handle.stores.logs.insertMany([fresh, ...rows.slice(0, 50)]);
      await t.handle.stores.logs.insertMany([fresh]);
      assert.equal((await report(t, query({ orgId: 'org_replay' }))).totals.requests, 1);
    });

    if (d.name === 'sqlite') {
      test('the log worker path (prepared statements) writes the same rollups, and ignores replays', async () => {
        const other = await d.open();
        try {
          const sqlite = new SQLite(other.handle.where);
          const insert = sqliteLogBatchInsert(sqlite);
          const values = rows.map(logValues);
          for (let i = 0; i < values.length; i += 200) insert(values.slice(i, i + 200));
          insert(values.slice(0, 400));
          sqlite.close();
          for (const groupBy of GROUPS) {
            const q = query({ groupBy, granularity: 'day', tags: groupBy?.kind === 'model' ? { team: 'a' } : null });
            assert.deepEqual(await report(other, q), await report(t, q), label(q));
          }
        } finally {
          await other.dispose();
        }
      });
    }

    test('a rollup row hit by many batches keeps an exact histogram (PostgreSQL compacts its text)', async () => {
      const hour = T0 + 20 * 86_400_000;
      const many = Array.from({ length: 3000 }, (_, i) =>
        logRow({
          orgId: 'org_hot',
          latencyMs: 1 + ((i * 7919) % 20_000),
          createdAt: new Date(hour + (i % 3600) * 1000).toISOString(),
        }),
      );
      for (let i = 0; i < many.length; i += 30) await t.handle.stores.logs.insertMany(many.slice(i, i + 30));
      for (const granularity of ['hour', 'day'] as Granularity[]) {
        const q = query({ orgId: 'org_hot', start: hour, end: hour + HOUR_MS, granularity });
        assertMatchesExact(await report(t, q), many, q, `hot row, ${granularity}`);
      }
    });

    test(`at most ${END_USER_LIMIT} end users and ${TAGSET_LIMIT} tag sets per org and day; the rest is 'other'`, async () => {
      const day = T0 + 10 * 86_400_000;
      const at = (minutes: number) => new Date(day + minutes * 60_000).toISOString();
      const users = Array.from({ length: END_USER_LIMIT + 200 }, (_, i) =>
        logRow({ orgId: 'org_card', endUser: `user-${String(i).padStart(5, '0')}`, createdAt: at(i % 600) }),
      );
      // Concurrent writers: on PostgreSQL these are separate transactions racing for the slots.
      await Promise.all([0, 1, 2, 3].map((k) => t.handle.stores.logs.insertMany(users.filter((_, i) => i % 4 === k))));
      // An admitted user keeps its name for the rest of the day; a newcomer is 'other'.
      const admitted = await report(t, {
        ...query({ orgId: 'org_card', start: day, end: day + 86_400_000, granularity: 'day' }),
        groupBy: { kind: 'end_user' },
      });
      const named = admitted.series.filter((p) => p.group !== 'other');
      assert.equal(named.length, END_USER_LIMIT);
      const first = named[0]?.group as string;
      await t.handle.stores.logs.insertMany([
        logRow({ orgId: 'org_card', endUser: first, createdAt: at(700) }),
        logRow({ orgId: 'org_card', endUser: 'late-comer', createdAt: at(701) }),
        logRow({ orgId: 'org_card', endUser: 'next-day', createdAt: at(24 * 60 + 5) }),
      ]);
      const r = await report(t, {
        ...query({ orgId: 'org_card', start: day, end: day + 2 * 86_400_000, granularity: 'day' }),
        groupBy: { kind: 'end_user' },
      });
      const dayOne = r.series.filter((p) => p.bucket === new Date(day).toISOString());
      assert.equal(dayOne.find((p) => p.group === 'other')?.requests, 201);
      assert.equal(dayOne.find((p) => p.group === first)?.requests, 2);
      assert.equal(dayOne.length, END_USER_LIMIT + 1);
      assert.equal(r.series.find((p) => p.group === 'next-day')?.requests, 1, 'the bound starts afresh each day');
      assert.equal(r.totals.requests, END_USER_LIMIT + 203);

      const tagged = Array.from({ length: TAGSET_LIMIT + 5 }, (_, i) =>
        logRow({ orgId: 'org_tags', tags: { team: 'x', n: String(i) }, createdAt: at(i) }),
      );
      await t.handle.stores.logs.insertMany(tagged);
      const byTeam = await report(t, {
        ...query({ orgId: 'org_tags', start: day, end: day + 86_400_000, granularity: 'day' }),
        groupBy: { kind: 'tag', key: 'team' },
      });
      assert.deepEqual(
        byTeam.series.map((p) => [p.group, p.requests]),
        [
          ['other', 5],
          ['x', TAGSET_LIMIT],
        ],
      );
      const filtered = await report(t, {
        ...query({ orgId: 'org_tags', start: day, end: day + 86_400_000, granularity: 'day' }),
        tags: { team: 'x' },
      });
      assert.equal(filtered.totals.requests, TAGSET_LIMIT, 'tag sets past the bound do not match a filter');
    });
  });
}

test('SQLite and PostgreSQL give the same reports', (ctx) => {
  const sqlite = byDialect.get('sqlite');
  const pg = byDialect.get('postgres');
  if (!sqlite || !pg) return ctx.skip('needs both dialects');
  assert.equal(pg.length, sqlite.length);
  for (let i = 0; i < sqlite.length; i++) assert.equal(pg[i], sqlite[i], `report ${i}`);
});

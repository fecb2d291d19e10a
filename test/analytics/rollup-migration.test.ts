// Migration 130 on each dialect: rollup rows written before it (taken back to that shape with its
// `down`, which merges the request types of one key) keep counting in the default report, with the
// same numbers and latency percentiles, and new rows count by type next to them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { analyticsReport, type GroupBy, type Report, type ReportRequest } from '../../src/logs/analytics-report.ts';
import type { RequestTypeFilter } from '../../src/logs/report-request-types.ts';
import { down, up } from '../../src/store/migrations/130_rollup_request_type.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { logRow, T0 } from './fixtures.ts';

const DAY_MS = 86_400_000;

const rows = [
  ...Array.from({ length: 12 }, (_, i) =>
    logRow({
      orgId: 'org_m',
      latencyMs: 10 + i * 37,
      endUser: i % 3 === 0 ? 'u1' : null,
      tags: i % 2 === 0 ? { team: 'a' } : null,
      createdAt: new Date(T0 + i * 3_000_000).toISOString(),
    }),
  ),
  ...Array.from({ length: 5 }, (_, i) =>
    logRow({
      orgId: 'org_m',
      requestType: i % 2 === 0 ? 'batch_retrieve' : 'file_list',
      modelRequested: null,
      modelUsed: null,
      provider: null,
      costUsd: 0,
      latencyMs: 2,
      endUser: i === 0 ? 'u1' : null,
      tags: i === 1 ? { team: 'a' } : null,
      createdAt: new Date(T0 + i * 5_000_000).toISOString(),
    }),
  ),
];

function request(over: Partial<ReportRequest> = {}): ReportRequest {
  return {
    orgId: 'org_m',
    start: T0 - DAY_MS,
    end: T0 + 2 * DAY_MS,
    granularity: 'hour',
    groupBy: null,
    tags: null,
    includeComparison: false,
    ...over,
  };
}

const numbers = ({ request_types: _types, ...rest }: Report) => rest;

for (const d of await dialects()) {
  describe(`migration 130 (rollups by request type) on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    before(async () => {
      t = await d.open();
    });
    after(async () => t?.dispose());

    const report = (over: Partial<ReportRequest>) => analyticsReport(t.handle.stores.analytics, request(over));

    test('rows rolled up before it keep counting in the default report', async () => {
      await t.handle.stores.logs.insertMany(rows);
      const shapes: { groupBy: GroupBy | null; tags: Record<string, string> | null }[] = [
        { groupBy: null, tags: null },
        { groupBy: { kind: 'model' }, tags: null },
        { groupBy: { kind: 'end_user' }, tags: null },
        { groupBy: { kind: 'tag', key: 'team' }, tags: null },
        { groupBy: null, tags: { team: 'a' } },
      ];
      const everything: Report[] = [];
      for (const s of shapes) everything.push(await report({ ...s, requestTypes: 'all' }));
      assert.equal(everything[0]?.totals.requests, rows.length);
      assert.equal((await report({})).totals.requests, 12, 'polls and listings are left out');

      const db = t.handle.db as unknown as Kysely<unknown>;
      await down(db);
      await up(db);

      for (const [i, s] of shapes.entries()) {
        const all = everything[i] as Report;
        assert.deepEqual(numbers(await report(s)), numbers(all), `default ${JSON.stringify(s)}`);
        assert.deepEqual(
          numbers(await report({ ...s, requestTypes: 'all' })),
          numbers(all),
          `all ${JSON.stringify(s)}`,
        );
      }
      const named: RequestTypeFilter = ['chat_completion', 'batch_retrieve'];
      assert.equal((await report({ requestTypes: named })).totals.requests, 0, 'old rows have no type to match');
      const byType = await report({ groupBy: { kind: 'request_type' }, requestTypes: 'all' });
      assert.deepEqual([...new Set(byType.series.map((p) => p.group))], [null]);

      // New rows go to their own types beside the old ones.
      await t.handle.stores.logs.insertMany([
        logRow({ orgId: 'org_m', createdAt: new Date(T0).toISOString() }),
        logRow({ orgId: 'org_m', requestType: 'file_list', createdAt: new Date(T0).toISOString() }),
      ]);
      assert.equal((await report({})).totals.requests, rows.length + 1);
      assert.equal((await report({ requestTypes: 'all' })).totals.requests, rows.length + 2);
      assert.equal((await report({ requestTypes: ['file_list'] })).totals.requests, 1);
      assert.equal((await report({ requestTypes: named })).totals.requests, 1);
    });
  });
}

// The semantic cache's facts in the request log: written the way the gateway writes them (the
// hook's row, through the SQLite worker or the in-thread writer), read back by `cacheStats` on both
// dialects, and shown by the management log views.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import pino from 'pino';
import { ulid } from 'ulid';
import { toStoreRow } from '../../src/logs/request-log-hook.ts';
import { WorkerLogWriter } from '../../src/logs/worker-writer.ts';
import { LogWriter } from '../../src/logs/writer.ts';
import { LogRecord, LogSummary, logRecord, logSummary } from '../../src/manage/log-views.ts';
import type { CallRecord } from '../../src/pipeline/record.ts';
import { callRecord } from '../helpers/call-record.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';

const silent = pino({ level: 'silent' });
const T = Date.parse('2026-12-01T00:00:00Z');
const DAY = 24 * 3600_000;

let seq = 0;
function call(over: Partial<CallRecord>): CallRecord {
  // Distinct milliseconds keep ids (ULIDs of the creation time) in creation order.
  const createdAt = over.createdAt ?? T + ++seq;
  return callRecord({
    id: `req_${ulid(createdAt).toLowerCase()}`,
    orgId: 'org_c',
    projectId: 'proj_c',
    createdAt,
    ...over,
  });
}

// The cache's columns as its end-of-call work notes them on the record.
const cacheNote = (cache: 'hit' | 'miss', similarity: number | null, saved: number, matched: boolean | null) => ({
  features: { cache: { cache, cacheSimilarity: similarity, savedCostUsd: saved, cacheShadowMatch: matched } },
});
const hit = (similarity: number | null, saved: number, over: Partial<CallRecord> = {}) =>
  call({ ...cacheNote('hit', similarity, saved, null), costUsd: 0, ...over });
const shadow = (similarity: number, matched: boolean, over: Partial<CallRecord> = {}) =>
  call({ ...cacheNote('miss', similarity, 0, matched), ...over });

const recent = [
  hit(0.955, 0.001),
  hit(0.95, 0.002),
  hit(0.999, 0.003),
  hit(1.0, 0.004),
  hit(1, 0.0005),
  // An exact decimal whose product with 100 falls a hair below 58 in binary floating point.
  hit(0.58, 0),
  hit(null, 0.01),
  shadow(0.8999, true),
  shadow(0.8999, false),
  shadow(0.92, true),
  call(cacheNote('miss', null, 0, null)),
  call({}),
];
const old = [hit(0.97, 1, { createdAt: T - DAY }), shadow(0.97, true, { createdAt: T - DAY + 1 })];
const elsewhere = [
  hit(0.99, 5, { projectId: 'proj_other' }),
  hit(0.99, 5, { orgId: 'org_other' }),
  call({ ...cacheNote('miss', null, 0, null), projectId: null }),
];

for (const d of await dialects()) {
  describe(`cache stats from the request log on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    before(async () => {
      t = await d.open();
      // The sink the gateway uses on this dialect (minus the journal, which only replays rows).
      const fallback = new RecordingSink();
      const inThread = new LogWriter(t.handle.stores.logs, silent);
      const writer = d.name === 'sqlite' ? new WorkerLogWriter(t.handle.where, silent, fallback) : inThread;
      for (const r of [...old, ...recent, ...elsewhere]) writer.enqueue(toStoreRow(r, false));
      await writer.close();
      assert.equal(writer.failed, 0);
      assert.equal(fallback.rows.length, 0, 'the SQLite worker wrote every row');
    });
    after(async () => t?.dispose());

    test('counts, money saved and percent buckets of one project', async () => {
      const s = await t.handle.stores.logs.cacheStats({ orgId: 'org_c', projectId: 'proj_c' });
      assert.equal(s.hits, 8);
      assert.equal(s.misses, 5);
      assert.ok(Math.abs(s.savedCostUsd - 1.0205) < 1e-12, String(s.savedCostUsd));
      assert.deepEqual(s.hitSimilarity, [
        { percent: 58, count: 1 },
        { percent: 95, count: 2 },
        { percent: 97, count: 1 },
        { percent: 99, count: 1 },
        { percent: 100, count: 2 },
      ]);
      assert.deepEqual(s.shadow, [
        { percent: 89, wouldHit: 2, matched: 1 },
        { percent: 92, wouldHit: 1, matched: 1 },
        { percent: 97, wouldHit: 1, matched: 1 },
      ]);
    });

    test('since keeps rows created at or after it', async () => {
      const s = await t.handle.stores.logs.cacheStats({
        orgId: 'org_c',
        projectId: 'proj_c',
        since: new Date(T - DAY + 1).toISOString(),
      });
      assert.equal(s.hits, 7, 'the old hit is out, the old shadow row (one ms later) is in');
      assert.equal(s.misses, 5);
      assert.ok(Math.abs(s.savedCostUsd - 0.0205) < 1e-12, String(s.savedCostUsd));
      assert.deepEqual(
        s.shadow.map((b) => b.percent),
        [89, 92, 97],
      );
      const later = await t.handle.stores.logs.cacheStats({
        orgId: 'org_c',
        projectId: 'proj_c',
        since: new Date(T).toISOString(),
      });
      assert.equal(later.hits, 7);
      assert.equal(later.misses, 4);
      assert.deepEqual(
        later.hitSimilarity.map((b) => b.percent),
        [58, 95, 99, 100],
      );
    });

    test('other projects and orgs are apart; a project without cache rows has empty stats', async () => {
      const other = await t.handle.stores.logs.cacheStats({ orgId: 'org_c', projectId: 'proj_other' });
      assert.equal(other.hits, 1);
      assert.equal(other.savedCostUsd, 5);
      assert.deepEqual(other.hitSimilarity, [{ percent: 99, count: 1 }]);
      const none = await t.handle.stores.logs.cacheStats({ orgId: 'org_other', projectId: 'proj_other' });
      assert.deepEqual(none, { hits: 0, misses: 0, savedCostUsd: 0, hitSimilarity: [], shadow: [] });
    });

    test('the new columns read back as written, false apart from null', async () => {
      const logs = t.handle.stores.logs;
      const served = await logs.get('org_c', recent[0].id);
      assert.equal(served?.savedCostUsd, 0.001);
      assert.equal(served?.cacheSimilarity, 0.955);
      assert.equal(served?.cacheShadowMatch, null);
      const mismatched = await logs.get('org_c', recent[8].id);
      assert.equal(mismatched?.cacheShadowMatch, false);
      assert.equal(mismatched?.savedCostUsd, 0);
      assert.equal((await logs.get('org_c', recent[7].id))?.cacheShadowMatch, true);
    });
  });
}

test('the log views show the cache columns and fit their schemas', () => {
  const row = toStoreRow(call(cacheNote('miss', 0.8999, 0.25, false)), true);
  const summary = logSummary(row);
  assert.equal(summary.saved_cost_usd, 0.25);
  assert.equal(summary.cache_similarity, 0.8999);
  assert.equal(summary.cache_shadow_match, false);
  assert.ok(Value.Check(LogSummary, summary));
  const plain = logRecord(toStoreRow(call({}), true));
  assert.equal(plain.saved_cost_usd, 0);
  assert.equal(plain.cache_similarity, null);
  assert.equal(plain.cache_shadow_match, null);
  assert.ok(Value.Check(LogRecord, plain));
});

// The semantic cache's entry table on both dialects: one entry per (tenant, exact key), vectors kept
// bit for bit, expiry, least-recently-used eviction and purge.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CacheEntryStore, NewCacheEntry } from '../../src/store/cache-entries.ts';
import { decodeVector, encodeVector } from '../../src/store/cache-entries.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

const NOW = 1_800_000_000_000;

function entry(over: Partial<NewCacheEntry> = {}): NewCacheEntry {
  return {
    projectId: 'proj_a',
    tenant: 'proj_a',
    partitionKey: 'part-1',
    exactKey: 'key-1',
    model: 'openai/gpt-4o-mini',
    embedder: 'local-ngram-v1-256',
    vector: Float32Array.from([0.5, -0.25, 1e-7, 3.4e38]),
    response: { content: [{ type: 'text', text: 'Paris' }], stop_reason: 'end_turn' },
    inputTokens: 12,
    outputTokens: 3,
    costUsd: 0.0000036,
    createdAt: NOW,
    expiresAt: NOW + 3_600_000,
    ...over,
  };
}

test('vectors survive the base64 text form bit for bit, from any buffer offset', () => {
  const backing = new Float32Array([9, 1.5, -2.25, Number.MIN_VALUE, 7]);
  const view = backing.subarray(1, 4);
  assert.deepEqual([...decodeVector(encodeVector(view))], [...view]);
});

for (const d of await dialects()) {
  describe(`cache entries on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    let s: CacheEntryStore;
    before(async () => {
      t = await d.open();
      s = t.handle.stores.cacheEntries;
    });
    after(async () => {
      await t?.dispose();
    });

    test('one entry per (tenant, exact key): a new answer replaces the old one', async () => {
      const first = await s.put(entry());
      const again = await s.put(entry({ response: { content: 'newer' }, costUsd: 0.5 }));
      assert.equal(again, first);
      const got = await s.getExact('proj_a', 'key-1', NOW);
      assert.ok(got);
      assert.deepEqual(got.response, { content: 'newer' });
      assert.equal(got.costUsd, 0.5);
      assert.deepEqual([...(got.vector ?? [])], [...entry().vector!]);
      // Another tenant with the same key is another entry (the tenant is always part of the key).
      const other = await s.put(entry({ tenant: 'proj_b', projectId: 'proj_b' }));
      assert.notEqual(other, first);
      assert.equal((await s.getExact('proj_b', 'key-1', NOW))?.projectId, 'proj_b');
      assert.equal(await s.getExact('proj_c', 'key-1', NOW), undefined);
    });

    test('putMany writes a batch in one statement: the last of a repeated key wins, ids come back by key', async () => {
      const existing = await s.put(entry({ tenant: 'proj_m', projectId: 'proj_m', exactKey: 'm-1' }));
      const ids = await s.putMany([
        entry({ tenant: 'proj_m', projectId: 'proj_m', exactKey: 'm-1', costUsd: 1 }),
        entry({ tenant: 'proj_m', projectId: 'proj_m', exactKey: 'm-2', costUsd: 2 }),
        entry({ tenant: 'proj_m', projectId: 'proj_m', exactKey: 'm-2', costUsd: 3, createdAt: NOW + 1 }),
      ]);
      assert.equal(ids.size, 2);
      assert.equal(ids.get('proj_m\nm-1'), existing, 'an upsert keeps the row');
      assert.equal((await s.getExact('proj_m', 'm-1', NOW))?.costUsd, 1);
      const second = await s.getExact('proj_m', 'm-2', NOW);
      assert.equal(second?.costUsd, 3);
      assert.equal(second?.id, ids.get('proj_m\nm-2'));
      assert.deepEqual(await s.putMany([]), new Map());
      // removeVersion deletes only the answer written at that time.
      await s.removeVersion(existing, NOW + 5);
      assert.ok(await s.getExact('proj_m', 'm-1', NOW));
      await s.removeVersion(existing, NOW);
      assert.equal(await s.getExact('proj_m', 'm-1', NOW), undefined);
    });

    test('touchMany marks several entries used at once', async () => {
      const a = await s.put(entry({ tenant: 'proj_t', projectId: 'proj_t', exactKey: 't-1' }));
      const b = await s.put(entry({ tenant: 'proj_t', projectId: 'proj_t', exactKey: 't-2' }));
      await s.touchMany([a, b], NOW + 60_000);
      assert.equal((await s.get(a))?.lastUsedAt, NOW + 60_000);
      assert.equal((await s.get(b))?.lastUsedAt, NOW + 60_000);
      await s.touchMany([], NOW);
    });

    test('expired entries are neither served nor listed, and the sweep deletes them', async () => {
      await s.put(entry({ exactKey: 'old', expiresAt: NOW - 1 }));
      assert.equal(await s.getExact('proj_a', 'old', NOW), undefined);
      const live = await s.listLive(NOW, { limit: 100 });
      assert.ok(live.every((e) => e.expiresAt > NOW));
      assert.ok(!live.some((e) => e.exactKey === 'old'));
      const swept = await s.sweepExpired(NOW, 100);
      assert.equal(swept.length, 1);
      assert.equal(await s.countLive('proj_a', NOW - 10), 1);
    });

    test('eviction drops the least recently used beyond the bound; purge empties a project', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push(await s.put(entry({ projectId: 'proj_e', tenant: 'proj_e', exactKey: `e${i}`, createdAt: NOW + i })));
      await s.touchMany([ids[0]], NOW + 100);
      const evicted = await s.evictBeyond('proj_e', 3, 100);
      assert.deepEqual(evicted.sort(), [ids[1], ids[2]].sort());
      assert.equal(await s.countLive('proj_e', NOW), 3);
      assert.ok(await s.get(ids[0]));
      assert.equal(await s.purgeProject('proj_e'), 3);
      assert.equal(await s.countLive('proj_e', NOW), 0);
      assert.equal(await s.countLive('proj_a', NOW), 1);
    });

    test('listLive pages in id order', async () => {
      for (let i = 0; i < 7; i++) await s.put(entry({ projectId: 'proj_p', tenant: 'proj_p', exactKey: `p${i}` }));
      const seen: string[] = [];
      let afterId: string | undefined;
      for (;;) {
        const page = await s.listLive(NOW, { afterId, limit: 3 });
        if (page.length === 0) break;
        seen.push(...page.map((e) => e.id));
        afterId = page[page.length - 1].id;
      }
      assert.deepEqual(seen, [...seen].sort());
      assert.equal(new Set(seen).size, seen.length);
      assert.ok(seen.length >= 7);
    });
  });
}

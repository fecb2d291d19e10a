// An entry another instance announced is read from the store before it is loaded; a purge of its
// project heard during that read must win, or the purged entry would stay in memory for ever. After a
// gap in the bus (announcements lost), memory is made alike with the store again, under the same rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { LocalChangeBus } from '../cluster/local/change-bus.ts';
import type { CacheEntry, CacheEntryStore } from '../store/cache-entries.ts';
import { SemanticCache } from './service.ts';

const row = (id: string, projectId = 'proj_a'): CacheEntry => ({
  id,
  projectId,
  tenant: projectId,
  partitionKey: 'p',
  exactKey: `x-${id}`,
  model: 'openai/gpt-4o-mini',
  embedder: null,
  vector: null,
  response: {
    answer: { id: 'r', model: 'gpt-4o-mini', content: [], stopReason: 'end_turn', usage: { input: 1, output: 1 } },
    max_tokens: null,
    provider: 'openai',
  },
  inputTokens: 1,
  outputTokens: 1,
  costUsd: 0,
  createdAt: Date.now(),
  lastUsedAt: Date.now(),
  expiresAt: Date.now() + 60_000,
});

test('a purge heard while an announced entry is read keeps that entry out', async () => {
  let release: (r: CacheEntry) => void = () => {};
  const store = {
    listLive: async () => [],
    get: (id: string) =>
      id === 'slow' ? new Promise<CacheEntry>((resolve) => (release = resolve)) : Promise.resolve(row(id)),
  } as unknown as CacheEntryStore;
  const bus = new LocalChangeBus();
  const cache = new SemanticCache({
    store,
    projectSettings: () => ({ semantic_cache: { enabled: true } }),
    logger: pino({ level: 'silent' }),
    changes: bus,
  });
  await cache.start();
  try {
    // An entry read and loaded with no purge in between is kept.
    await bus.publish({ topic: 'cache_entry', id: 'quick', orgId: 'proj_a' });
    assert.equal(cache.entries('proj_a'), 1);
    const heard = bus.publish({ topic: 'cache_entry', id: 'slow', orgId: 'proj_a' });
    await bus.publish({ topic: 'cache_entry', id: 'purge:proj_a', orgId: 'proj_a' });
    assert.equal(cache.entries('proj_a'), 0);
    release(row('slow'));
    await heard;
    assert.equal(cache.entries('proj_a'), 0, 'the row read before the purge is not loaded after it');
  } finally {
    await cache.close();
  }
});

/** A bus whose connection the test breaks: `resume()` is what a resubscription after a gap tells. */
class GapBus extends LocalChangeBus {
  readonly resumeHandlers = new Set<() => void>();
  override onResume(handler: () => void): () => void {
    const entry = () => handler();
    this.resumeHandlers.add(entry);
    return () => void this.resumeHandlers.delete(entry);
  }
  resume(): void {
    for (const h of this.resumeHandlers) h();
  }
}

/** A store of rows held in a map; `hold` makes the next listLive wait until released. */
function mapStore(rows: CacheEntry[]) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const deletes: string[] = [];
  let held: Promise<void> | undefined;
  let purgeHeld: Promise<void> | undefined;
  const s = {
    byId,
    deletes,
    reads: 0,
    purgeStarted: false,
    /** Makes purgeProject wait, its rows still there, until the result is called. */
    holdPurge(): () => void {
      let release = () => {};
      purgeHeld = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
    hold(): () => void {
      let release = () => {};
      held = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
    store: {
      listLive: async (now: number) => {
        s.reads++;
        const live = [...byId.values()].filter((r) => r.expiresAt > now);
        const wait = held;
        held = undefined;
        await wait;
        return live;
      },
      get: async (id: string) => byId.get(id),
      touchMany: async () => {},
      removeVersion: async (id: string) => void deletes.push(id),
      remove: async (id: string) => void deletes.push(id),
      purgeProject: async (projectId: string) => {
        s.purgeStarted = true;
        await purgeHeld;
        const ids = [...byId.values()].filter((r) => r.projectId === projectId).map((r) => r.id);
        for (const id of ids) byId.delete(id);
        return ids.length;
      },
    } as unknown as CacheEntryStore,
  };
  return s;
}

function cacheOn(store: CacheEntryStore, bus: GapBus, maxEntries = 10): SemanticCache {
  return new SemanticCache({
    store,
    projectSettings: () => ({ semantic_cache: { enabled: true, max_entries: maxEntries } }),
    logger: pino({ level: 'silent' }),
    changes: bus,
  });
}

test('after a gap, rows gone from the store leave memory (nothing deleted) and rows memory lacks come in', async () => {
  const s = mapStore([row('a', 'proj_a'), row('b', 'proj_b')]);
  const bus = new GapBus();
  const cache = cacheOn(s.store, bus);
  await cache.start();
  // During the gap: another instance purged proj_a and wrote an entry of proj_c; no event arrived.
  s.byId.delete('a');
  s.byId.set('c', row('c', 'proj_c'));
  assert.deepEqual([cache.entries('proj_a'), cache.entries('proj_c')], [1, 0]);
  bus.resume();
  // close() waits for the reconcile, and unsubscribes from resumes.
  await cache.close();
  assert.deepEqual(
    ['proj_a', 'proj_b', 'proj_c'].map((p) => cache.entries(p)),
    [0, 1, 1],
  );
  assert.deepEqual(s.deletes, [], 'the rows were deleted elsewhere: nothing to delete again');
  assert.equal(bus.resumeHandlers.size, 0);
  assert.equal(s.reads, 2, 'one read at start, one after the gap');
});

test('a purge heard while the store is read for a reconcile keeps the rows read before it out', async () => {
  const s = mapStore([]);
  const bus = new GapBus();
  const cache = cacheOn(s.store, bus);
  await cache.start();
  s.byId.set('a', row('a', 'proj_a'));
  s.byId.set('b', row('b', 'proj_b'));
  const release = s.hold();
  bus.resume();
  await new Promise((r) => setImmediate(r));
  assert.equal(s.reads, 2, 'the reconcile has read its rows');
  // Another instance purges proj_a and says so while this read's rows are on their way.
  s.byId.delete('a');
  await bus.publish({ topic: 'cache_entry', id: 'purge:proj_a', orgId: 'proj_a' });
  release();
  await cache.close();
  assert.equal(cache.entries('proj_a'), 0, 'read before the purge, not loaded after it');
  assert.equal(cache.entries('proj_b'), 1);
});

test('resumes during a reconcile add one read after it, not one each', async () => {
  const s = mapStore([row('a')]);
  const bus = new GapBus();
  const cache = cacheOn(s.store, bus);
  await cache.start();
  const release = s.hold();
  bus.resume();
  await new Promise((r) => setImmediate(r));
  assert.equal(s.reads, 2);
  bus.resume();
  bus.resume();
  release();
  await cache.close();
  assert.equal(s.reads, 3);
  assert.equal(cache.entries('proj_a'), 1);
});

test('an entry evicted here while the store is read for a reconcile is not loaded back', async () => {
  const s = mapStore([row('a'), row('b')]);
  const bus = new GapBus();
  const cache = cacheOn(s.store, bus, 2);
  await cache.start();
  const release = s.hold();
  bus.resume();
  await new Promise((r) => setImmediate(r));
  // Announced during the read: loading it evicts the oldest entry, whose row this instance deletes.
  s.byId.set('c', row('c'));
  await bus.publish({ topic: 'cache_entry', id: 'c', orgId: 'proj_a' });
  release();
  await cache.close();
  assert.equal(cache.entries('proj_a'), 2);
  // Loading 'a' back from the read (taken before its eviction) would have evicted and deleted 'b'.
  assert.deepEqual(s.deletes, ['a']);
});

test("rows read for a reconcile while this instance's purge deletes them are not loaded", async () => {
  const s = mapStore([]);
  const bus = new GapBus();
  const cache = cacheOn(s.store, bus);
  await cache.start();
  // Written elsewhere during the gap; this instance's purge comes before it learns of it.
  s.byId.set('a', row('a'));
  const releasePurge = s.holdPurge();
  const purged = cache.purge('proj_a');
  while (!s.purgeStarted) await new Promise((r) => setImmediate(r));
  // The reconcile reads the row the purge has not deleted yet, and loads it before the purge is done.
  bus.resume();
  while (s.reads < 2) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.equal(cache.entries('proj_a'), 1);
  // The purge's announcement, heard here too once the rows are deleted, drops it again.
  releasePurge();
  assert.equal(await purged, 1);
  await cache.close();
  assert.equal(cache.entries('proj_a'), 0);
});

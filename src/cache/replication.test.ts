// An entry another instance announced is read from the store before it is loaded; a purge of its
// project heard during that read must win, or the purged entry would stay in memory for ever.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { LocalChangeBus } from '../cluster/local/change-bus.ts';
import type { CacheEntry, CacheEntryStore } from '../store/cache-entries.ts';
import { SemanticCache } from './service.ts';

const row = (id: string): CacheEntry => ({
  id,
  projectId: 'proj_a',
  tenant: 'proj_a',
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

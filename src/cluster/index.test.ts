import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import pino from 'pino';
import { createChangeBus, createCounters, type LinkState } from './index.ts';
import { LocalChangeBus } from './local/change-bus.ts';
import { LocalCounters } from './local/counters.ts';
import { RedisChangeBus } from './redis/change-bus.ts';
import { createRedisClient } from './redis/client.ts';
import { FailoverCounters } from './redis/failover-counters.ts';
import { dropKeys, redisSkip, TEST_REDIS_URL, until, untilReady } from './redis/test-support.ts';

const logger = pino({ level: 'silent' });

test('without a Redis URL the adapters are the in-process ones', async () => {
  const counters = await createCounters({ redisUrl: null });
  const bus = await createChangeBus({ redisUrl: null, workerId: null }, logger);
  assert.ok(counters instanceof LocalCounters);
  assert.ok(bus instanceof LocalChangeBus);
  // Synchronous answers: nothing on the hot path changes in embedded mode.
  assert.deepEqual(counters.admit({ now: 0, tokens: 0, costUsd: 0, rates: [], budgets: [] }), {
    ok: true,
    requests: undefined,
    tokens: undefined,
  });
  assert.equal(await counters.claimOnce('a', 1000), true);
  assert.equal(await counters.claimOnce('a', 1000), false);
  await Promise.all([counters.close(), bus.close()]);
});

describe('with a Redis URL', { skip: await redisSkip() }, () => {
  test('counters and the change bus go through Redis, under the given prefix', async () => {
    const keyPrefix = `test${randomBytes(4).toString('hex')}`;
    const states: LinkState[] = [];
    const config = { redisUrl: TEST_REDIS_URL, workerId: null };
    const counters = await createCounters(config, { logger, keyPrefix, onStateChange: (s) => states.push(s) });
    const a = await createChangeBus(config, logger, { keyPrefix });
    const b = await createChangeBus(config, logger, { keyPrefix });
    try {
      assert.ok(counters instanceof FailoverCounters);
      assert.ok(a instanceof RedisChangeBus && b instanceof RedisChangeBus);
      await until(() => states.includes('redis') && a.state === 'redis' && b.state === 'redis', 5000);
      await counters.seedSpend('b1::0', 0.5);
      assert.deepEqual(await counters.budgetsWithPrefix('b1:'), [{ key: 'b1::0', spentUsd: 0.5, reservedUsd: 0 }]);
      const seen: string[] = [];
      b.subscribe('cache_entry', (e) => void seen.push(e.id));
      await a.publish({ topic: 'cache_entry', id: 'ce_1', orgId: 'o' });
      await until(() => seen.length === 1, 2000);
    } finally {
      const admin = createRedisClient(TEST_REDIS_URL, { commandTimeoutMs: 2000 });
      await untilReady(admin);
      await dropKeys(admin, `sy:${keyPrefix}:`);
      admin.disconnect();
      await Promise.all([counters.close(), a.close(), b.close()]);
    }
  });
});

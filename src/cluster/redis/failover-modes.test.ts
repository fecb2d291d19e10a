// Slow is not away, and the three SWITCHYARD_LIMITS_WITHOUT_REDIS modes, on FailoverCounters alone:
// a Redis slowed by a proxy, an event loop blocked while an answer arrives, and a frozen Redis
// (SIGSTOP) with three "instances" in one registry.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, describe, test } from 'node:test';
import type { LimitsWithoutRedis } from '../../config.ts';
import type { AdmitRequest, AdmitResult, RateCheck } from '../../ports/counters.ts';
import { createRedisClient } from './client.ts';
import { RedisCounters } from './counters.ts';
import { FailoverCounters } from './failover-counters.ts';
import { admitRequest, delayProxy, RedisProcess, randomPrefix, redisServerSkip, until } from './test-support.ts';

const skip = await redisServerSkip();

const rpm = (n: number): RateCheck => ({ key: 'k:1', scope: 'api_key', limits: { rpm: n } });
const req = (over: Partial<AdmitRequest>): AdmitRequest => admitRequest(over);

function instance(url: string, prefix: string, mode: LimitsWithoutRedis, deadlineMs = 300) {
  const redis = new RedisCounters({ client: createRedisClient(url, { commandTimeoutMs: null }), keyPrefix: prefix });
  return new FailoverCounters({
    redis,
    mode,
    deadlineMs,
    probeMs: 50,
    registryKey: `${prefix}inst`,
    heartbeatMs: 100,
  });
}

const admitted = (results: AdmitResult[]) => results.filter((r) => r.ok).length;

describe('FailoverCounters: slow is not away', { skip }, () => {
  const closing: Array<() => Promise<void>> = [];
  after(async () => {
    for (const close of closing) await close();
  });

  test('Redis 300 ms slower per answer: admissions wait and stay exact', async () => {
    const server = await RedisProcess.start();
    closing.push(() => server.kill());
    const proxy = await delayProxy({ host: '127.0.0.1', port: server.port }, 300);
    closing.push(() => proxy.close());
    const counters = instance(proxy.url, randomPrefix(), 'local', 1000);
    closing.push(() => counters.close());
    await until(() => counters.state === 'redis', 5000, 'first connection');
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 30 }, () => counters.admit(req({ rates: [rpm(10)] }))));
    assert.ok(performance.now() - started >= 300, 'answered by Redis, through the delay');
    assert.equal(admitted(results), 10);
    assert.equal(counters.state, 'redis');
  });

  test('an answer that arrived while the event loop was blocked is used, not discarded as late', async () => {
    const server = await RedisProcess.start();
    closing.push(() => server.kill());
    const counters = instance(server.url, randomPrefix(), 'refuse', 300);
    closing.push(() => counters.close());
    await until(() => counters.state === 'redis', 5000, 'first connection');
    // Loaded first: the blocked admission is then one round trip.
    assert.ok((await counters.admit(req({ rates: [rpm(10)] }))).ok);
    const pending = counters.admit(req({ rates: [rpm(10)] }));
    // Busy for three deadlines: the timer phase then runs before the socket holding the answer is read.
    const end = performance.now() + 900;
    while (performance.now() < end) {}
    assert.ok((await pending).ok);
    assert.equal(counters.state, 'redis');
  });
});

describe('FailoverCounters: a frozen Redis, per mode', { skip }, () => {
  /**
   * Three instances share rpm 30; 12 calls go through Redis round-robin, then Redis freezes and 60
   * more come round-robin. Returns what was admitted while frozen, per instance.
   */
  async function frozenBurst(mode: LimitsWithoutRedis): Promise<{ during: number[]; refusals: string[] }> {
    const server = await RedisProcess.start();
    const prefix = randomPrefix();
    const nodes = [0, 1, 2].map(() => instance(server.url, prefix, mode));
    try {
      await until(() => nodes.every((n) => n.state === 'redis'), 5000, 'connections');
      // Every instance has heard the registry count all three.
      await new Promise((r) => setTimeout(r, 400));
      for (let i = 0; i < 12; i++) assert.ok((await nodes[i % 3].admit(req({ rates: [rpm(30)] }))).ok);
      server.pause();
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => Promise.resolve(nodes[i % 3].admit(req({ rates: [rpm(30)] })))),
      );
      const during = [0, 1, 2].map((n) => admitted(results.filter((_, i) => i % 3 === n)));
      const refusals = [...new Set(results.flatMap((r) => (r.ok ? [] : [r.refusal.kind])))];
      return { during, refusals };
    } finally {
      server.resume();
      for (const n of nodes) await n.close();
      await server.kill();
    }
  }

  test('share: each instance admits a third of what it last saw left; together no more than was left', async () => {
    const { during, refusals } = await frozenBurst('share');
    // 18 were left; the instances last saw 20, 19 and 18 left (their last answers came 12, 11 and 10
    // calls in), a third of each rounded down: 6 each.
    assert.deepEqual(during, [6, 6, 6]);
    assert.deepEqual(refusals, ['rpm']);
  });

  test('local: each instance admits the whole limit alone', async () => {
    const { during } = await frozenBurst('local');
    assert.deepEqual(during, [20, 20, 20]);
  });

  test('refuse: nothing is admitted while Redis cannot count it', async () => {
    const { during, refusals } = await frozenBurst('refuse');
    assert.deepEqual(during, [0, 0, 0]);
    assert.deepEqual(refusals, ['unavailable']);
  });
});

// What an admission costs: LocalCounters against RedisCounters on this machine's Redis (loopback),
// printed for the decision on handing quota to instances in blocks. The assertions are loose (the
// machine is shared with other test files); the numbers are the point.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import type { AdmitRequest, Counters } from '../../ports/counters.ts';
import { LocalCounters } from '../local/counters.ts';
import { RedisCounters } from './counters.ts';
import { FailoverCounters } from './failover-counters.ts';
import { dropKeys, randomPrefix, redisSkip, testClient, untilReady } from './test-support.ts';

const skip = await redisSkip();
const N = 5000;

/** A typical limited call: key rpm + tpm, project concurrency, one blocking budget. */
function call(i: number): AdmitRequest {
  return {
    now: Date.now(),
    tokens: 300,
    costUsd: 0.0001,
    rates: [
      { key: `k:${i % 50}`, scope: 'api_key', limits: { rpm: 1e9, tpm: 1e12 } },
      { key: 'p:1', scope: 'project', limits: { concurrency: 1e6 } },
    ],
    budgets: [{ key: 'b1::0', budgetId: 'b1', limitUsd: 1e9, block: true }],
  };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function measure(counters: Counters): Promise<{ admit: number[]; settle: number[] }> {
  const admit: number[] = [];
  const settle: number[] = [];
  for (let i = 0; i < N + 500; i++) {
    const req = call(i);
    const t0 = performance.now();
    const res = await counters.admit(req);
    const t1 = performance.now();
    assert.ok(res.ok);
    await counters.settle({ now: req.now, admitted: req, actualTokens: 250, actualUsd: 0.0001 });
    const t2 = performance.now();
    // The first 500 warm up the JIT and the connection.
    if (i >= 500) {
      admit.push((t1 - t0) * 1000);
      settle.push((t2 - t1) * 1000);
    }
  }
  return { admit: admit.sort((a, b) => a - b), settle: settle.sort((a, b) => a - b) };
}

function report(name: string, r: { admit: number[]; settle: number[] }): void {
  const f = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} µs, p99 ${pct(xs, 99).toFixed(1)} µs`;
  console.log(`${name}: admit ${f(r.admit)}; settle ${f(r.settle)}`);
}

describe('admission latency', { skip }, () => {
  test('LocalCounters vs RedisCounters vs FailoverCounters (sequential, loopback)', async () => {
    report('LocalCounters', await measure(new LocalCounters()));
    const prefix = randomPrefix();
    const redis = new RedisCounters({ client: testClient(), keyPrefix: prefix });
    await untilReady(redis.client);
    const failoverRedis = new RedisCounters({ client: testClient(), keyPrefix: prefix });
    await untilReady(failoverRedis.client);
    const failover = new FailoverCounters({ redis: failoverRedis });
    try {
      const r = await measure(redis);
      report('RedisCounters', r);
      report('FailoverCounters (on Redis)', await measure(failover));
      assert.ok(pct(r.admit, 50) < 5000, 'an admission is a loopback round trip, not milliseconds');
    } finally {
      await dropKeys(redis.client, prefix);
      await redis.close();
      await failover.close();
    }
  });

  test('RedisCounters under 64 concurrent admissions (one connection, pipelined)', async () => {
    const prefix = randomPrefix();
    const redis = new RedisCounters({ client: testClient(), keyPrefix: prefix });
    await untilReady(redis.client);
    try {
      const lat: number[] = [];
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (next < N) {
            const req = call(next++);
            const t0 = performance.now();
            await redis.admit(req);
            lat.push((performance.now() - t0) * 1000);
            await redis.settle({ now: req.now, admitted: req, actualTokens: 250, actualUsd: 0.0001 });
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      lat.sort((a, b) => a - b);
      console.log(
        `RedisCounters, 64 in flight: admit p50 ${pct(lat, 50).toFixed(0)} µs, p99 ${pct(lat, 99).toFixed(0)} µs; ` +
          `${Math.round(N / seconds)} admit+settle pairs/s`,
      );
    } finally {
      await dropKeys(redis.client, prefix);
      await redis.close();
    }
  });
});

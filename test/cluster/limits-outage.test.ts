// Redis paused (CLIENT PAUSE 2 s, longer than the 1 s an admission waits for a silent Redis) during a
// burst, once per SWITCHYARD_LIMITS_WITHOUT_REDIS mode, on three instances: refuse admits nothing
// it cannot count, share stays within its bound, local lets each instance admit the limit alone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { chat, type OwnRedis, ownRedis, startCluster, within } from './helpers.ts';
import { burst, count, keyWith, refill } from './stress.ts';

type Health = { status: string; redis: { admitted_without_redis: number; refused_without_redis: number } };
const health = async (g: GatewayProcess) => (await (await fetch(`${g.url}/healthz`)).json()) as Health;

describe('Redis paused during a burst, per mode', () => {
  let fake: FakeUpstream;
  let redis: OwnRedis;
  let admin: Redis;
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
    redis = await ownRedis();
    admin = new Redis(redis.url);
  });
  after(async () => {
    admin?.disconnect();
    await redis?.stop();
    await fake?.close();
  });

  /**
   * 12 calls at rpm 30 through Redis, then Redis paused for 2 s and 60 more calls round-robin.
   * Returns the statuses of the 60, what the instances say they answered without Redis, and how
   * long it all took (the limit refills meanwhile).
   */
  async function pausedBurst(mode: string) {
    const cluster = await startCluster(3, { SWITCHYARD_REDIS_URL: redis.url, SWITCHYARD_LIMITS_WITHOUT_REDIS: mode });
    try {
      const started = performance.now();
      const nodes = cluster.nodes;
      assert.equal(await nodes[0].addOpenAi(fake.url), 201);
      const warm = await keyWith(nodes, 'warm', { rpm: 1000 });
      assert.equal(count(await burst(nodes, 6, warm, chat()), 200), 6);
      const key = await keyWith(nodes, `rpm 30 ${mode}`, { rpm: 30 });
      // Every instance has heard the registry count all three (heartbeats every 2 s).
      await new Promise((r) => setTimeout(r, Math.max(0, 2500 - (performance.now() - started))));
      const from = performance.now();
      assert.equal(count(await burst(nodes, 12, key, chat()), 200), 12);
      await admin.call('CLIENT', 'PAUSE', '2000', 'ALL');
      const statuses = await burst(nodes, 60, key, chat());
      const ms = performance.now() - from;
      await within(10_000, 'Redis back everywhere', async () =>
        (await Promise.all(nodes.map(health))).every((h) => h.status === 'ok') ? true : undefined,
      );
      const hs = await Promise.all(nodes.map(health));
      const sum = (f: (h: Health) => number) => hs.reduce((n, h) => n + f(h), 0);
      return {
        statuses,
        ms,
        admittedWithoutRedis: sum((h) => h.redis.admitted_without_redis),
        refusedWithoutRedis: sum((h) => h.redis.refused_without_redis),
      };
    } finally {
      await cluster.close();
    }
  }

  test('refuse: nothing admitted that Redis did not count; 503 limits_unavailable', async () => {
    const r = await pausedBurst('refuse');
    assert.equal(count(r.statuses, 200), 0, JSON.stringify(r.statuses));
    assert.equal(count(r.statuses, 503), 60);
    assert.equal(r.refusedWithoutRedis, 60);
    assert.equal(r.admittedWithoutRedis, 0);
  });

  test('share: each instance a third of what it last saw left, together within the bound', async () => {
    const r = await pausedBurst('share');
    const admitted = count(r.statuses, 200);
    console.log(`share: ${admitted} of 60 admitted while Redis was paused (18 were left; ${Math.round(r.ms)} ms)`);
    // 18 were left. Each instance last saw at least that (at most 2 more: the calls round-robin sent
    // after its last answer) and admits a third of it, rounded up (a share of 20/3 admits a 7th call
    // once its fraction is covered), plus a third of the refill meanwhile.
    assert.ok(admitted >= 18, `${admitted}`);
    assert.ok(admitted <= 3 * Math.ceil(20 / 3) + refill(30, r.ms), `${admitted} in ${Math.round(r.ms)} ms`);
    assert.equal(r.admittedWithoutRedis, admitted);
    assert.equal(count(r.statuses, 429), 60 - admitted);
  });

  test('local: each instance counts alone, so up to 3 times the limit', async () => {
    const r = await pausedBurst('local');
    // 20 calls reach each instance, under its own limit of 30.
    assert.equal(count(r.statuses, 200), 60);
    assert.equal(r.admittedWithoutRedis, 60);
  });
});

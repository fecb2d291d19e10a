// Limits across three instances when the machine is busy or Redis is slow: slower, never looser.
// Two busy processes take both cores from the gateways (serial: no other test file runs meanwhile,
// and none is slowed by these); a proxy in front of Redis then holds every reply for 300 ms.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { type Cluster, chat, type OwnRedis, ownRedis, startCluster } from './helpers.ts';
import { budgetBurst, burst, busyProcesses, count, keyWith, refill, type SlowRedis, slowRedis } from './stress.ts';

describe('exact limits under stress', () => {
  let fake: FakeUpstream;
  let redis: OwnRedis;
  let proxy: SlowRedis;
  let cluster: Cluster;
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
    redis = await ownRedis();
    proxy = await slowRedis(redis.port);
    cluster = await startCluster(3, { SWITCHYARD_REDIS_URL: proxy.url });
    assert.equal(await cluster.nodes[0].addOpenAi(fake.url), 201);
    // A first call loads each instance's proxy path: that cost is not what the bursts measure.
    const warm = await keyWith(cluster.nodes, 'warm', { rpm: 1000 });
    assert.deepEqual(await burst(cluster.nodes, 6, warm, chat()), [200, 200, 200, 200, 200, 200]);
  });
  after(async () => {
    await cluster?.close();
    await proxy?.stop();
    await redis?.stop();
    await fake?.close();
  });

  /** Admitted of 90 calls at rpm 30, per run; each run within the exact bound. */
  async function rpmRuns(runs: number, tag: string): Promise<number[]> {
    const admitted: number[] = [];
    for (let run = 0; run < runs; run++) {
      const key = await keyWith(cluster.nodes, `rpm 30 ${tag} ${run}`, { rpm: 30 });
      const started = performance.now();
      const statuses = await burst(cluster.nodes, 90, key, chat());
      const ms = performance.now() - started;
      assert.equal(count(statuses, 200) + count(statuses, 429), 90, JSON.stringify(statuses));
      const ok = count(statuses, 200);
      assert.ok(ok >= 30 && ok <= 30 + refill(30, ms), `${ok} admitted in a ${Math.round(ms)} ms burst`);
      admitted.push(ok);
    }
    return admitted;
  }

  async function withoutRedis(): Promise<number> {
    let n = 0;
    for (const g of cluster.nodes) {
      const h = (await (await fetch(`${g.url}/healthz`)).json()) as { redis: { admitted_without_redis: number } };
      n += h.redis.admitted_without_redis;
    }
    return n;
  }

  test('two busy processes: rpm 30 admits 30 of 90, five runs; a budget admits what one instance does', async () => {
    const busy = busyProcesses(2);
    try {
      const runs = await rpmRuns(5, 'busy');
      console.log(`busy: rpm 30 admitted ${runs.join(', ')}`);
      // Answers take 6 s: on a loaded machine a burst of 60 takes longer to get through admission.
      const one = await budgetBurst(cluster.nodes[0], [cluster.nodes[0]], 'busy-one', 6000);
      const three = await budgetBurst(cluster.nodes[0], cluster.nodes, 'busy-three', 6000);
      console.log(`busy: budget for 10 admitted ${one.admitted} on one instance, ${three.admitted} on three`);
      assert.equal(one.admitted, 10, JSON.stringify(one));
      assert.ok(three.admitted <= one.admitted, JSON.stringify({ one, three }));
      assert.equal(three.admitted + three.refused, 60);
      assert.ok(three.spent <= 0.0062, `spent ${three.spent}`);
      assert.equal(await withoutRedis(), 0, 'busy is not away');
    } finally {
      await busy.stop();
    }
  });

  test('Redis 300 ms slower per reply: the same exact figures', async () => {
    await proxy.delay(300);
    try {
      const runs = await rpmRuns(2, 'slow');
      const three = await budgetBurst(cluster.nodes[0], cluster.nodes, 'slow-three', 4000);
      console.log(`slow Redis: rpm 30 admitted ${runs.join(', ')}; budget for 10 admitted ${three.admitted}`);
      assert.equal(three.admitted, 10, JSON.stringify(three));
      assert.ok(three.spent <= 0.0062, `spent ${three.spent}`);
      assert.equal(await withoutRedis(), 0, 'slow is not away');
    } finally {
      await proxy.delay(0);
    }
  });
});

// Redis stopped and started again under load (a redis-server of the test's own): the instances keep
// serving on their own counters, with no 5xx, /healthz says degraded meanwhile, and once Redis is
// back limits are exact across the instances again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { type Cluster, call, chat, type OwnRedis, ok, ownRedis, startCluster, within } from './helpers.ts';
import { keyKnownEverywhere } from './stress.ts';

async function health(
  g: GatewayProcess,
): Promise<{ status: string; redis?: { counters: string; change_events: string } }> {
  return (await (await fetch(`${g.url}/healthz`)).json()) as {
    status: string;
    redis?: { counters: string; change_events: string };
  };
}

describe('Redis outage', () => {
  let cluster: Cluster;
  let fake: FakeUpstream;
  let redis: OwnRedis;
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
    redis = await ownRedis();
    cluster = await startCluster(2, { SWITCHYARD_REDIS_URL: redis.url });
    assert.equal(await cluster.nodes[0].addOpenAi(fake.url), 201);
  });
  after(async () => {
    await cluster?.close();
    await fake?.close();
    await redis?.stop();
  });

  test('no 5xx while Redis stops and starts again; exact limits once it is back', async () => {
    const nodes = cluster.nodes;
    const limited = (await ok(nodes[0], 'POST', '/manage/v1/api-keys', {
      name: 'limited under load',
      rate_limits: { rpm: 100_000, concurrency: 50 },
    })) as { key: string };
    await keyKnownEverywhere(nodes, limited.key);
    for (const g of nodes) assert.equal((await health(g)).status, 'ok');
    const statuses: number[] = [];
    let running = true;
    const loops = Array.from({ length: 8 }, async (_, i) => {
      while (running) {
        const r = await call(nodes[i % nodes.length], 'POST', '/alpha/v1/chat/completions', chat(), limited.key);
        statuses.push(r.status);
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    await redis.stop();
    await within(5000, 'degraded on every instance', async () =>
      (await Promise.all(nodes.map(health))).every((h) => h.status === 'degraded') ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 1000));
    await redis.start();
    await within(10_000, 'back on Redis everywhere', async () =>
      (await Promise.all(nodes.map(health))).every((h) => h.status === 'ok') ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 300));
    running = false;
    await Promise.all(loops);
    assert.ok(statuses.length > 50, `only ${statuses.length} calls`);
    assert.deepEqual(
      statuses.filter((s) => s >= 500),
      [],
      'no 5xx',
    );
    assert.ok(statuses.every((s) => s === 200));

    const k = (await ok(nodes[0], 'POST', '/manage/v1/api-keys', { name: 'rpm 10', rate_limits: { rpm: 10 } })) as {
      key: string;
    };
    await keyKnownEverywhere(nodes, k.key);
    const after = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(nodes[i % nodes.length], 'POST', '/alpha/v1/chat/completions', chat(), k.key).then((r) => r.status),
      ),
    );
    assert.equal(after.filter((s) => s === 200).length, 10, JSON.stringify(after));
  });
});

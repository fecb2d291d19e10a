// RedisChangeBus: two buses stand for two instances. Delivery across them, its latency, no double
// delivery of an instance's own events, and publishing through an outage.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, describe, test } from 'node:test';
import type { ChangeEvent } from '../../ports/change-bus.ts';
import { RedisChangeBus } from './change-bus.ts';
import type { ClusterLog, LinkState } from './client.ts';
import { RedisProcess, randomPrefix, redisServerSkip, redisSkip, TEST_REDIS_URL, until } from './test-support.ts';

const skip = await redisSkip();
const serverSkip = await redisServerSkip();

const ev = (id: string): ChangeEvent => ({ topic: 'routing_config', id, orgId: 'org_1' });

function pair(url: string) {
  const keyPrefix = randomPrefix();
  const a = new RedisChangeBus({ url, keyPrefix, instanceId: 'a' });
  const b = new RedisChangeBus({ url, keyPrefix, instanceId: 'b' });
  return { a, b, ready: () => until(() => a.state === 'redis' && b.state === 'redis', 5000, 'both buses up') };
}

describe('RedisChangeBus', { skip }, () => {
  const buses: RedisChangeBus[] = [];
  after(async () => {
    for (const bus of buses) await bus.close();
  });

  test('an event published on one instance reaches the other, within 200 ms at p99', async () => {
    const { a, b, ready } = pair(TEST_REDIS_URL);
    buses.push(a, b);
    await ready();
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    let arrived: (() => void) | undefined;
    b.subscribe('routing_config', (e) => {
      latencies.push(performance.now() - (sentAt.get(e.id) ?? Number.NaN));
      arrived?.();
    });
    for (let i = 0; i < 200; i++) {
      const got = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      sentAt.set(`rc_${i}`, performance.now());
      await a.publish(ev(`rc_${i}`));
      await got;
    }
    latencies.sort((x, y) => x - y);
    const p50 = latencies[99];
    const p99 = latencies[197];
    console.log(`change bus latency over 200 events: p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms`);
    assert.equal(latencies.length, 200);
    assert.ok(p99 < 200, `p99 ${p99} ms`);
  });

  test("publish resolves after this process's subscribers applied it; own events come once", async () => {
    const { a, b, ready } = pair(TEST_REDIS_URL);
    buses.push(a, b);
    await ready();
    const seenA: string[] = [];
    const seenB: string[] = [];
    a.subscribe('api_key', async (e) => {
      await new Promise((r) => setTimeout(r, 5));
      seenA.push(e.id);
    });
    b.subscribe('api_key', (e) => void seenB.push(e.id));
    b.subscribe('webhook_endpoint', (e) => void seenB.push(e.id));
    await a.publish({ topic: 'api_key', id: 'key_1', orgId: 'o' });
    assert.deepEqual(seenA, ['key_1']);
    await a.publish({ topic: 'webhook_endpoint', id: 'whep_1', orgId: 'o' });
    await until(() => seenB.length === 2, 2000, 'delivery to b');
    // Redis echoed both events back to a: long enough for a duplicate to show.
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(seenA, ['key_1']);
    assert.deepEqual(seenB, ['key_1', 'whep_1']);
  });

  test('instances under another prefix hear nothing', async () => {
    const one = pair(TEST_REDIS_URL);
    const other = new RedisChangeBus({ url: TEST_REDIS_URL, keyPrefix: randomPrefix() });
    buses.push(one.a, one.b, other);
    await one.ready();
    await until(() => other.state === 'redis', 5000);
    const heard: string[] = [];
    other.subscribe('project', (e) => void heard.push(e.id));
    one.b.subscribe('project', (e) => void heard.push(`b:${e.id}`));
    await one.a.publish({ topic: 'project', id: 'proj_1', orgId: 'o' });
    await until(() => heard.length > 0, 2000);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(heard, ['b:proj_1']);
  });
});

describe('RedisChangeBus through an outage', { skip: serverSkip }, () => {
  test('publish with Redis down resolves at once, delivers locally, and the bus recovers', async () => {
    const server = await RedisProcess.start();
    const lines: string[] = [];
    const logger: ClusterLog = {
      info: (_o, m) => void lines.push(`info: ${m}`),
      warn: (_o, m) => void lines.push(`warn: ${m}`),
      error: (_o, m) => void lines.push(`error: ${m}`),
    };
    const states: LinkState[] = [];
    const keyPrefix = randomPrefix();
    const a = new RedisChangeBus({ url: server.url, keyPrefix, logger, onStateChange: (s) => states.push(s) });
    const b = new RedisChangeBus({ url: server.url, keyPrefix });
    let resumes = 0;
    b.onResume(() => resumes++);
    try {
      await until(() => a.state === 'redis' && b.state === 'redis', 5000);
      assert.equal(resumes, 1, 'the first subscription resumes: what came before it was not heard');
      const local: string[] = [];
      const remote: string[] = [];
      a.subscribe('credential', (e) => void local.push(e.id));
      b.subscribe('credential', (e) => void remote.push(e.id));

      await server.kill();
      await until(() => a.state === 'local', 5000);
      const started = performance.now();
      for (let i = 0; i < 20; i++) await a.publish({ topic: 'credential', id: `prov_${i}`, orgId: 'o' });
      assert.ok(performance.now() - started < 100, 'publishing does not wait for Redis');
      assert.equal(local.length, 20);
      assert.equal(lines.filter((l) => l.startsWith('warn')).length, 1);

      await server.restart();
      await until(() => a.state === 'redis' && b.state === 'redis', 10_000, 'reconnection');
      await a.publish({ topic: 'credential', id: 'prov_after', orgId: 'o' });
      await until(() => remote.includes('prov_after'), 2000, 'delivery after the outage');
      assert.equal(resumes, 2, 'each resubscription resumes: the 20 events of the outage never reach b');
      assert.deepEqual(states, ['redis', 'local', 'redis']);
      assert.ok(lines.some((l) => l.startsWith('info: Redis is back')));
    } finally {
      await a.close();
      await b.close();
      await server.kill();
    }
  });
});

// Two gateways on one store (both dialects) with the cache replicated over a real Redis change bus,
// B's connection to Redis passing through a gate the test can cut. While B hears nothing, A purges
// the project and writes a new entry: neither announcement reaches B. Once B subscribes again it
// re-reads the store, so it stops serving the purged entry and serves A's new one from memory.
// Without that re-read B served the purged answer until it expired, and missed A's.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { redisSkip, TEST_REDIS_URL } from '../../src/cluster/redis/test-support.ts';
import { dialects } from '../helpers/dialects.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { RedisGate } from '../helpers/redis-gate.ts';
import { cachedProject, chat, type Json, waitForCacheStats } from './helpers.ts';

const skipRedis = await redisSkip();
const MASTER_KEY = Buffer.alloc(32, 5).toString('base64');
const ask = (content: string): Json => ({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }] });

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const cacheHeader = async (env: ProxyEnv, key: string, question: string): Promise<string | null> =>
  (await chat(env, key, 'alpha', ask(question))).headers.get('x-svc-cache');

for (const d of await dialects()) {
  describe(`the replicated cache after a gap in the change bus, on ${d.name}`, { skip: d.skip ?? skipRedis }, () => {
    test('B drops what A purged during the gap and serves what A wrote during it', async () => {
      const gate = await RedisGate.start({ open: true });
      const postgres = d.name === 'postgres';
      const shared = { masterKey: MASTER_KEY, redisPrefix: `cachegap${randomBytes(4).toString('hex')}:` };
      const onA = await startProxyEnv({ postgres, config: { ...shared, redisUrl: TEST_REDIS_URL } });
      let b: Gateway | undefined;
      try {
        b = await startGateway({
          dataDir: onA.gw.dataDir,
          postgres,
          pgSchema: onA.gw.pgSchema ?? undefined,
          config: { ...shared, redisUrl: gate.url },
        });
        const gwB = b;
        const onB: ProxyEnv = { ...onA, gw: gwB };
        const heard = (g: Gateway) => () => g.app.svc.cluster.changes === 'redis';
        await until('both buses subscribed', () => heard(onA.gw)() && heard(gwB)());
        const project = await cachedProject(onA, 'gap');
        const heldOnB = () => gwB.app.svc.cache.entries(project.id);

        assert.equal(await cacheHeader(onA, project.key, 'What is a switchyard?'), 'MISS');
        await until("A's entry announced and loaded on B", () => heldOnB() === 1);
        assert.equal(await cacheHeader(onB, project.key, 'What is a switchyard?'), 'HIT');

        gate.cut();
        await until('B no longer hears the bus', () => !heard(gwB)());
        assert.equal((await api(onA.gw, 'DELETE', `/manage/v1/projects/${project.id}/cache`)).status, 200);
        assert.equal(await cacheHeader(onA, project.key, 'Who built the first railway?'), 'MISS');
        const stats = await waitForCacheStats(onA, project.id, (s) => s.entries === 1);
        assert.equal(stats.entries, 1, "A's new entry is in the store");
        // The gap is real: B heard neither the purge nor the new entry.
        assert.equal(await cacheHeader(onB, project.key, 'What is a switchyard?'), 'HIT');

        gate.open();
        await until('B hears the bus again', heard(gwB));
        await until(
          'B no longer serves the purged entry',
          async () => (await cacheHeader(onB, project.key, 'What is a switchyard?')) === 'MISS',
          5000,
        );
        // One call, so a miss here cannot be hidden by B's own entry from a retry.
        assert.equal(await cacheHeader(onB, project.key, 'Who built the first railway?'), 'HIT');
      } finally {
        await b?.close({ keepData: true });
        await onA.close();
        await gate.close();
      }
    });
  });
}

// Two gateways on one store (both dialects) with the cache replicated over a real Redis change bus,
// B's connection to Redis passing through a gate the test can cut. While B hears nothing, A purges
// the project and writes a new entry: neither announcement reaches B. Once B subscribes again it
// re-reads the store, so it stops serving the purged entry and serves A's new one from memory.
// Without that re-read B served the purged answer until it expired, and missed A's.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { describe, test } from 'node:test';
import { redisSkip, TEST_REDIS_URL } from '../../src/cluster/redis/test-support.ts';
import { dialects } from '../helpers/dialects.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { cachedProject, chat, type Json, waitForCacheStats } from './helpers.ts';

const skipRedis = await redisSkip();
const MASTER_KEY = Buffer.alloc(32, 5).toString('base64');
const ask = (content: string): Json => ({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }] });

/** A TCP path to Redis that the test cuts (every connection dropped, new ones refused) and opens again. */
class RedisGate {
  #open = true;
  readonly #sockets = new Set<Socket>();
  readonly #server: Server;
  readonly #target = new URL(TEST_REDIS_URL);

  private constructor() {
    this.#server = createServer((client) => {
      if (!this.#open) return void client.destroy();
      const upstream = tcpConnect(Number(this.#target.port || 6379), this.#target.hostname);
      for (const s of [client, upstream]) this.#sockets.add(s);
      client.pipe(upstream).pipe(client);
      const end = () => {
        for (const s of [client, upstream]) {
          s.destroy();
          this.#sockets.delete(s);
        }
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
  }

  static async start(): Promise<RedisGate> {
    const gate = new RedisGate();
    await new Promise<void>((resolve) => gate.#server.listen(0, '127.0.0.1', resolve));
    return gate;
  }

  get url(): string {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return `redis://127.0.0.1:${address.port}`;
  }

  cut(): void {
    this.#open = false;
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  open(): void {
    this.#open = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

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
      const gate = await RedisGate.start();
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

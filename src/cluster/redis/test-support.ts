// Helpers for the colocated Redis adapter tests (not imported by product code): the test server's
// address, a skip reason when it is unreachable (a failure in CI), per-test key prefixes and their
// cleanup, and a throwaway redis-server child process for the outage tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Redis } from 'ioredis';
import { createRedisClient } from './client.ts';

export const TEST_REDIS_URL = process.env.SWITCHYARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';

let probe: Promise<string | undefined> | undefined;

/** Why the Redis tests are skipped here, or undefined when they run. */
export function redisSkip(): Promise<string | undefined> {
  probe ??= (async () => {
    const client = createRedisClient(TEST_REDIS_URL, { commandTimeoutMs: 1000 });
    try {
      await untilReady(client, 2000);
      await client.ping();
      return undefined;
    } catch (err) {
      const why = `Redis not reachable at ${TEST_REDIS_URL}: ${(err as Error).message}`;
      // In CI a missing Redis is a failure, never a silent skip.
      if (process.env.CI === 'true') throw new Error(why);
      return why;
    } finally {
      client.disconnect();
    }
  })();
  return probe;
}

/** A client for tests: a generous timeout, since test files run side by side on a busy machine. */
export function testClient(url: string = TEST_REDIS_URL): Redis {
  return createRedisClient(url, { commandTimeoutMs: 2000 });
}

export function randomPrefix(): string {
  return `sy:test:${randomBytes(6).toString('hex')}:`;
}

export async function untilReady(client: Redis, timeoutMs = 5000): Promise<void> {
  if (client.status === 'ready') return;
  await Promise.race([
    once(client, 'ready'),
    new Promise((_, reject) => setTimeout(() => reject(new Error('Redis not ready in time')), timeoutMs).unref()),
  ]);
}

/** Deletes every key under `prefix` (which holds no glob characters). */
export async function dropKeys(client: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) n += await client.del(...keys);
  } while (cursor !== '0');
  return n;
}

export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    out.push(...keys);
  } while (cursor !== '0');
  return out.sort();
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A redis-server of the test's own, to kill and restart. */
export class RedisProcess {
  readonly port: number;
  #child: ChildProcess | undefined;

  private constructor(port: number) {
    this.port = port;
  }

  static async start(port?: number): Promise<RedisProcess> {
    const server = new RedisProcess(port ?? (await freePort()));
    await server.restart();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#child = child;
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 5000);
      child.stdout?.on('data', () => {
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${out}`));
      });
    });
    await ready;
  }

  /** Freezes the server: connections stay open, commands get no answer (a hung Redis). */
  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  /** Kills the server at once (no shutdown handshake), as a crash or a network cut would. */
  async kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}

/** Resolves once `cond` holds (polling), or fails after `timeoutMs`. */
export async function until(cond: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Whether redis-server can be started here (for the outage tests). */
export async function redisServerSkip(): Promise<string | undefined> {
  try {
    const server = await RedisProcess.start();
    await server.kill();
    return undefined;
  } catch (err) {
    const why = `cannot start redis-server: ${(err as Error).message}`;
    if (process.env.CI === 'true') throw new Error(why);
    return why;
  }
}

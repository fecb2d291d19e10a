// Helpers for the colocated Redis adapter tests (not imported by product code): the test server's
// address, a skip reason when it is unreachable (a failure in CI), per-test key prefixes and their
// cleanup, and a throwaway redis-server child process for the outage tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import type { Redis } from 'ioredis';
import type { AdmitRequest } from '../../ports/counters.ts';
import { createRedisClient } from './client.ts';

export const TEST_REDIS_URL = process.env.SWITCHYARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/** An admit call that counts nothing and checks nothing but what `over` adds. */
export function admitRequest(over: Partial<AdmitRequest>, now = Date.now()): AdmitRequest {
  return { now, tokens: 0, costUsd: 0, rates: [], budgets: [], ...over };
}

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

/** A TCP proxy to Redis that holds every reply chunk for `delayMs` (settable), in order: a slow Redis. */
export interface DelayProxy {
  url: string;
  delayMs: number;
  close(): Promise<void>;
}

export async function delayProxy(target: { host: string; port: number }, delayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.on('data', (d) => upstream.write(d));
    // Each chunk is due `delayMs` after it came; one is written only after those before it, so a
    // delay lowered meanwhile never reorders replies.
    const queue: Array<{ due: number; data: Buffer }> = [];
    let timer: NodeJS.Timeout | undefined;
    const pump = () => {
      timer = undefined;
      while (queue.length > 0 && queue[0].due <= Date.now()) {
        const next = queue.shift();
        if (next && client.writable) client.write(next.data);
      }
      if (queue.length > 0) timer = setTimeout(pump, queue[0].due - Date.now());
    };
    upstream.on('data', (data: Buffer) => {
      queue.push({ due: Date.now() + proxy.delayMs, data });
      if (timer === undefined) timer = setTimeout(pump, proxy.delayMs);
    });
    const end = () => {
      clearTimeout(timer);
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const proxy: DelayProxy = {
    url: `redis://127.0.0.1:${address.port}`,
    delayMs,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
  return proxy;
}

// A cluster of gateway processes for the scale-out tests: N instances on one PostgreSQL schema and
// one Redis key prefix of their own (so test files never see each other's state), the same master
// key and admin key, each started the way a user starts one (`bin/switchyard.js serve`).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { after, before } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { dropSchema, randomSchema, TEST_PG_URL } from '../helpers/dialects.ts';
import { freePort, type GatewayProcess, spawnGateway } from '../helpers/gateway-process.ts';

export const TEST_REDIS_URL = process.env.SWITCHYARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');

export type Json = Record<string, unknown>;

export interface Cluster {
  nodes: GatewayProcess[];
  schema: string;
  prefix: string;
  env: Record<string, string>;
  /** Starts one more instance with the cluster's settings (and `extra`). */
  add(extra?: Record<string, string>): Promise<GatewayProcess>;
  close(): Promise<void>;
}

/**
 * For a describe block: `n` instances with a fake upstream as their openai credential, started in its
 * before() and closed in its after(). The nodes are read once the block's tests run.
 */
export function clusterWithFake(n: number): { readonly nodes: GatewayProcess[] } {
  let cluster: Cluster | undefined;
  let fake: FakeUpstream | undefined;
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
    cluster = await startCluster(n);
    assert.equal(await cluster.nodes[0].addOpenAi(fake.url), 201);
  });
  after(async () => {
    await cluster?.close();
    await fake?.close();
  });
  return {
    get nodes() {
      if (cluster === undefined) throw new Error('the cluster starts in before()');
      return cluster.nodes;
    },
  };
}

export async function startCluster(n: number, extra: Record<string, string> = {}): Promise<Cluster> {
  const schema = randomSchema();
  const prefix = `sytest:${schema}:`;
  const env: Record<string, string> = {
    SWITCHYARD_DATABASE_URL: TEST_PG_URL,
    SWITCHYARD_DATABASE_SCHEMA: schema,
    SWITCHYARD_REDIS_URL: TEST_REDIS_URL,
    SWITCHYARD_REDIS_PREFIX: prefix,
    SWITCHYARD_MASTER_KEY: MASTER_KEY,
    ...extra,
  };
  const nodes: GatewayProcess[] = [];
  const cluster: Cluster = {
    nodes,
    schema,
    prefix,
    env,
    async add(more = {}) {
      const g = await spawnGateway({ ...env, ...more });
      nodes.push(g);
      return g;
    },
    async close() {
      await Promise.all(nodes.map((g) => g.stop().catch(() => {})));
      await dropSchema(schema).catch(() => {});
    },
  };
  try {
    // One at a time: the first runs the migrations, the others find them done.
    for (let i = 0; i < n; i++) await cluster.add();
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}

export async function call(
  g: GatewayProcess,
  method: string,
  path: string,
  body?: unknown,
  key = g.key,
): Promise<{ status: number; json: Json; headers: Headers }> {
  const res = await fetch(`${g.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Json = {};
  try {
    json = text ? (JSON.parse(text) as Json) : {};
  } catch {
    json = { text };
  }
  return { status: res.status, json, headers: res.headers };
}

export async function ok(g: GatewayProcess, method: string, path: string, body?: unknown): Promise<Json> {
  const r = await call(g, method, path, body);
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

export function chat(model = 'openai/gpt-4o-mini', content = 'hi'): Json {
  return { model, messages: [{ role: 'user', content }] };
}

/** Polls until `check` returns something other than undefined; the elapsed ms with it. */
export async function within<T>(
  ms: number,
  what: string,
  check: () => Promise<T | undefined>,
): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  for (;;) {
    const value = await check();
    const elapsed = performance.now() - start;
    if (value !== undefined) return { value, ms: elapsed };
    if (elapsed > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A redis-server of the test's own, on a free port, that the test can stop and start again. */
export interface OwnRedis {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const r: OwnRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
        },
      );
      for (let i = 0; i < 100; i++) {
        const up = await new Promise<boolean>((resolve) => {
          const s = connect(port, '127.0.0.1');
          s.once('connect', () => {
            s.destroy();
            resolve(true);
          });
          s.once('error', () => resolve(false));
        });
        if (up) return;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error(`redis-server on ${port} did not start`);
    },
    async stop() {
      const c = child;
      if (c === undefined || c.exitCode !== null) return;
      const gone = new Promise((res) => c.once('exit', res));
      c.kill('SIGKILL');
      await gone;
    },
  };
  await r.start();
  return r;
}

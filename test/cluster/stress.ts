// What the limits stress tests put the cluster through: busy processes that take the CPU from the
// gateways, and bursts sent round-robin over the instances.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { call, ok, within } from './helpers.ts';

export interface Busy {
  stop(): Promise<void>;
}

/** `n` processes spinning on a core each until stopped (also on the test process's exit). */
export function busyProcesses(n: number): Busy {
  const children: ChildProcess[] = Array.from({ length: n }, () =>
    spawn(process.execPath, ['-e', 'while (true) {}'], { stdio: 'ignore' }),
  );
  const kill = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };
  process.once('exit', kill);
  return {
    async stop() {
      process.off('exit', kill);
      const gone = children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => once(c, 'exit'));
      kill();
      await Promise.all(gone);
    },
  };
}

/** delay-proxy.mjs in a process of its own, in front of the Redis on `port`. */
export interface SlowRedis {
  url: string;
  /** Holds each reply for `ms` from now on; resolves once the proxy says so. */
  delay(ms: number): Promise<void>;
  stop(): Promise<void>;
}

export async function slowRedis(port: number): Promise<SlowRedis> {
  const child = spawn(process.execPath, [new URL('./delay-proxy.mjs', import.meta.url).pathname, String(port)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
  const first = await next();
  return {
    url: `redis://127.0.0.1:${first.replace('port ', '')}`,
    async delay(ms) {
      const said = next();
      child.stdin.write(`${ms}\n`);
      await said;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = once(child, 'exit');
      child.kill('SIGKILL');
      await gone;
    },
  };
}

/**
 * Exact GCRA admits one more request per 60/limit seconds that a burst lasts: on a loaded machine a
 * burst may outlast that, and the exact figure is then higher (the suite asserts the bound; the
 * README's figures are bursts that fit).
 */
export function refill(limitPerMinute: number, burstMs: number): number {
  return Math.floor(burstMs / (60_000 / limitPerMinute));
}

/** Statuses of `n` calls started at once, the i-th on instance i mod N. */
export async function burst(nodes: GatewayProcess[], n: number, key: string, body: unknown): Promise<number[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      call(nodes[i % nodes.length], 'POST', '/alpha/v1/chat/completions', body, key).then((r) => r.status),
    ),
  );
}

export const count = (statuses: number[], s: number) => statuses.filter((x) => x === s).length;

/**
 * A key made on the first instance, returned once every instance knows it. The others hear of it over
 * the change bus, which on a busy machine can take longer than a test's set-up: a burst sent at once
 * was refused 401 by the two that had not yet heard (4 of 12 admitted, in CI). The model list is
 * authenticated but outside the limits, so asking it costs the key nothing.
 */
export async function keyWith(
  nodes: GatewayProcess[],
  name: string,
  rateLimits: Record<string, number>,
): Promise<string> {
  const made = (await ok(nodes[0], 'POST', '/manage/v1/api-keys', { name, rate_limits: rateLimits })) as {
    key: string;
  };
  await keyKnownEverywhere(nodes, made.key);
  return made.key;
}

/** Waits until every instance accepts `key` (see keyWith). */
export async function keyKnownEverywhere(nodes: GatewayProcess[], key: string): Promise<void> {
  await within(10_000, 'a new key known on every instance', async () => {
    const answers = await Promise.all(nodes.map((n) => call(n, 'GET', '/alpha/v1/models', undefined, key)));
    return answers.every((a) => a.status === 200) ? true : undefined;
  });
}

/**
 * A budget with room for 10 calls (each reserves about $0.00061: input plus 1000 max_tokens at list
 * price) hit by 60 concurrent calls over `nodes`. Answers take `slowMs`, so that the whole burst is
 * admitted or refused before any call settles (a settled call gives back most of its reservation).
 */
export async function budgetBurst(
  admin: GatewayProcess,
  nodes: GatewayProcess[],
  name: string,
  slowMs: number,
): Promise<{ admitted: number; refused: number; spent: number }> {
  const body = {
    model: `openai/gpt-4o-mini-slow-${slowMs}`,
    messages: [{ role: 'user', content: 'budgeted' }],
    max_tokens: 1000,
  };
  const p = (await ok(admin, 'POST', '/manage/v1/projects', { name })) as { id: string };
  const k = (await ok(admin, 'POST', '/manage/v1/api-keys', { name, project_id: p.id })) as { key: string };
  const b = (await ok(admin, 'POST', '/manage/v1/budgets', {
    name,
    scope: { type: 'project', id: p.id },
    period: 'monthly',
    limit_usd: 0.0062,
  })) as { id: string };
  const statuses = await burst(nodes, 60, k.key, body);
  const status = (await ok(admin, 'GET', `/manage/v1/budgets/${b.id}`)) as { status: { spent_usd: number } };
  return { admitted: count(statuses, 200), refused: count(statuses, 402), spent: status.status.spent_usd };
}

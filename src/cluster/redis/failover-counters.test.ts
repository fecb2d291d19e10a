// FailoverCounters against a redis-server of its own, killed, frozen and restarted mid-test.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, describe, test } from 'node:test';
import type { AdmitRequest, BudgetCheck, RateCheck } from '../../ports/counters.ts';
import { type ClusterLog, createRedisClient, type LinkState } from './client.ts';
import { RedisCounters } from './counters.ts';
import { FailoverCounters } from './failover-counters.ts';
import { admitRequest, freePort, RedisProcess, randomPrefix, redisServerSkip, until } from './test-support.ts';

const skip = await redisServerSkip();

const budget: BudgetCheck = { key: 'b1::0', budgetId: 'b1', limitUsd: 10, block: true };
const rate = (limits: RateCheck['limits']): RateCheck => ({ key: 'k:1', scope: 'api_key', limits });
const req = (over: Partial<AdmitRequest>): AdmitRequest => admitRequest(over);

/** Retries an assertion until it holds (what it checks arrives asynchronously). */
async function eventually(check: () => Promise<void>, timeoutMs = 2000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

function recorder() {
  const lines: string[] = [];
  const logger: ClusterLog = {
    info: (_o, msg) => void lines.push(`info: ${msg}`),
    warn: (_o, msg) => void lines.push(`warn: ${msg}`),
    error: (_o, msg) => void lines.push(`error: ${msg}`),
  };
  return { lines, logger, warnings: () => lines.filter((l) => l.startsWith('warn')).length };
}

/** In `local` mode: these tests are about what crosses an outage, not about the modes (failover-modes.test.ts). */
function failover(url: string, probeMs = 50) {
  const log = recorder();
  const states: LinkState[] = [];
  const redis = new RedisCounters({
    client: createRedisClient(url, { commandTimeoutMs: null }),
    keyPrefix: randomPrefix(),
  });
  const counters = new FailoverCounters({
    redis,
    logger: log.logger,
    onStateChange: (s) => states.push(s),
    probeMs,
    mode: 'local',
    deadlineMs: 200,
  });
  return { counters, states, log };
}

describe('FailoverCounters', { skip }, () => {
  const servers: RedisProcess[] = [];
  const closing: Array<() => Promise<void>> = [];
  after(async () => {
    for (const close of closing) await close();
    for (const s of servers) await s.kill();
  });

  /** A fresh Redis and failover counters that have reached it, both closed after the tests. */
  async function connected() {
    const server = await RedisProcess.start();
    servers.push(server);
    const made = failover(server.url);
    closing.push(() => made.counters.close());
    await until(() => made.counters.state === 'redis', 5000, 'first connection');
    return { server, ...made };
  }

  test('answers locally while Redis is down, and goes back to Redis by itself', async () => {
    const { server, counters, states, log } = await connected();

    // Admitted in Redis; its call is still running when Redis goes away.
    const inFlight = req({ costUsd: 0.2, budgets: [budget], rates: [rate({ concurrency: 50 })] });
    assert.ok((await counters.admit(inFlight)).ok);

    await server.kill();
    await until(() => counters.state === 'local', 5000, 'local state');
    const started = performance.now();
    const during = Array.from({ length: 100 }, () =>
      req({ costUsd: 0.01, budgets: [budget], rates: [rate({ rpm: 1000 })] }),
    );
    for (const r of during) {
      const res = counters.admit(r);
      // Local answers come without a promise: the hot path does not wait on anything.
      assert.ok(!(res instanceof Promise) && res.ok);
    }
    assert.ok(performance.now() - started < 100, 'local answers are immediate');
    assert.equal(log.warnings(), 1, log.lines.join('\n'));
    assert.deepEqual(await counters.budgets(['b1::0']), [{ spentUsd: 0, reservedUsd: 1 }]);

    // A call admitted locally settles locally; one admitted in Redis waits for Redis.
    const local = counters.settle({ now: Date.now(), admitted: during[0], actualTokens: 0, actualUsd: 0.05 });
    assert.deepEqual(local, [{ key: 'b1::0', budgetId: 'b1', previousUsd: 0, spentUsd: 0.05 }]);
    let settled = false;
    const pending = Promise.resolve(
      counters.settle({ now: Date.now(), admitted: inFlight, actualTokens: 0, actualUsd: 0.3 }),
    ).then((s) => {
      settled = true;
      return s;
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(settled, false);

    await server.restart();
    await until(() => counters.state === 'redis', 10_000, 'return to redis');
    assert.deepEqual(states, ['redis', 'local', 'redis']);
    assert.equal(log.warnings(), 1);
    assert.ok(log.lines.some((l) => l.startsWith('info: Redis is back')));
    // The restarted Redis lost its data; the held settles brought what was spent meanwhile.
    assert.deepEqual(await pending, [{ key: 'b1::0', budgetId: 'b1', previousUsd: 0.05, spentUsd: 0.35 }]);

    // After the outage: local admissions still settle locally, and their spend reaches Redis.
    const late = counters.settle({ now: Date.now(), admitted: during[1], actualTokens: 0, actualUsd: 0.1 });
    assert.ok(Array.isArray(late));
    const res = counters.admit(req({ costUsd: 0.5, budgets: [budget] }));
    assert.ok(res instanceof Promise && (await res).ok);
    await eventually(async () =>
      assert.deepEqual(await counters.budgets(['b1::0']), [{ spentUsd: 0.45, reservedUsd: 0.5 }]),
    );
  });

  test('a hung Redis: calls give up at the deadline, and an admission that ran anyway is undone', async () => {
    const { server, counters, states, log } = await connected();
    // Loads the scripts: the frozen server then runs the admission as soon as it wakes.
    const warm = req({ costUsd: 0.1, budgets: [budget] });
    assert.ok((await counters.admit(warm)).ok);
    await counters.settle({ now: warm.now, admitted: warm, actualTokens: 0, actualUsd: 0 });

    server.pause();
    const started = performance.now();
    const stuck = req({ costUsd: 0.5, budgets: [budget], rates: [rate({ concurrency: 1 })] });
    const res = await counters.admit(stuck);
    assert.ok(res.ok);
    const waited = performance.now() - started;
    assert.ok(waited >= 190 && waited < 1000, `the deadline bounds the wait (${waited} ms)`);
    assert.equal(counters.state, 'local');
    server.resume();

    // The frozen server ran the admission when it woke; the held undo takes it back.
    await until(() => counters.state === 'redis', 10_000, 'return to redis');
    assert.deepEqual(states, ['redis', 'local', 'redis']);
    assert.equal(log.warnings(), 1);
    assert.deepEqual(await counters.budgets(['b1::0']), [{ spentUsd: 0, reservedUsd: 0 }]);
    const again = await counters.admit(req({ rates: [rate({ concurrency: 1 })] }));
    assert.ok(again.ok, 'the concurrency slot was given back');
    // The local admission settles locally; its spend reaches Redis.
    assert.ok(Array.isArray(counters.settle({ now: Date.now(), admitted: stuck, actualTokens: 0, actualUsd: 0.25 })));
    await eventually(async () =>
      assert.deepEqual(await counters.budgets(['b1::0']), [{ spentUsd: 0.25, reservedUsd: 0 }]),
    );
  });

  test('Redis down from the start: local answers from the first call, one warning', async () => {
    const { counters, states, log } = failover(`redis://127.0.0.1:${await freePort()}`);
    closing.push(() => counters.close());
    await until(() => log.warnings() > 0, 5000, 'the outage warning');
    for (let i = 0; i < 50; i++) {
      const res = counters.admit(req({ rates: [rate({ rpm: 10 })] }));
      assert.ok(!(res instanceof Promise));
      assert.equal(res.ok, i < 10);
    }
    assert.equal(await counters.claimOnce('x', 1000), true);
    assert.equal(await counters.claimOnce('x', 1000), false);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(log.warnings(), 1);
    assert.deepEqual(states, []);
  });
});

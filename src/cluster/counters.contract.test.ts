// One suite for every Counters adapter: the same cases, the same expected answers, run against the
// in-process counters and the Redis ones. A second test runs random operation sequences through
// both and requires identical answers, to the last bit of every float.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { seededRandom } from '../../test/helpers/random.ts';
import type { AdmitRequest, AdmitResult, BudgetCheck, Counters, RateCheck } from '../ports/counters.ts';
import { LocalCounters } from './local/counters.ts';
import { RedisCounters } from './redis/counters.ts';
import { dropKeys, randomPrefix, redisSkip, testClient, untilReady } from './redis/test-support.ts';

interface Target {
  name: string;
  skip: string | undefined;
  open(): Promise<{ counters: Counters; dispose(): Promise<void> }>;
}

async function openRedis(): Promise<{ counters: RedisCounters; dispose(): Promise<void> }> {
  const prefix = randomPrefix();
  const counters = new RedisCounters({ client: testClient(), keyPrefix: prefix, leaseMs: 24 * 3_600_000 });
  await untilReady(counters.client);
  return {
    counters,
    async dispose() {
      try {
        await dropKeys(counters.client, prefix);
      } finally {
        await counters.close();
      }
    },
  };
}

const targets: Target[] = [
  {
    name: 'LocalCounters',
    skip: undefined,
    open: async () => ({ counters: new LocalCounters(), dispose: async () => {} }),
  },
  { name: 'RedisCounters', skip: await redisSkip(), open: openRedis },
];

const budget = (limitUsd = 1, block = true, key = 'b1::0'): BudgetCheck => ({
  key,
  budgetId: key.split(':')[0],
  limitUsd,
  block,
});
const rate = (limits: RateCheck['limits'], key = 'k:1', scope: RateCheck['scope'] = 'api_key'): RateCheck => ({
  key,
  scope,
  limits,
});
const request = (costUsd: number, rates: RateCheck[], budgets: BudgetCheck[], tokens = 0, now = 0): AdmitRequest => ({
  now,
  tokens,
  costUsd,
  rates,
  budgets,
});

type Case = (c: Counters) => Promise<void>;

const cases: Record<string, Case> = {
  'a refusal takes nothing: the other checks of the same admission are untouched': async (c) => {
    const limits = [rate({ rpm: 5, concurrency: 3 })];
    assert.equal((await c.admit(request(0.6, limits, [budget()], 10))).ok, true);
    const refused = await c.admit(request(0.6, limits, [budget()], 10));
    assert.equal(!refused.ok && refused.refusal.kind, 'budget');
    const ok = await c.admit(request(0.1, limits, [budget()], 10));
    assert.ok(ok.ok && ok.requests?.remaining === 3);
  },
  'a rate refusal in a later check leaves the earlier checks and the budgets untouched': async (c) => {
    const rates = [rate({ rpm: 10 }), rate({ rpm: 1 }, 'p:1', 'project')];
    assert.equal((await c.admit(request(0.1, rates, [budget()]))).ok, true);
    const refused = await c.admit(request(0.1, rates, [budget()]));
    assert.deepEqual(refused, {
      ok: false,
      refusal: {
        kind: 'rpm',
        scope: 'project',
        key: 'p:1',
        limit: 1,
        retryAfterMs: 60_000,
        requests: { limit: 1, remaining: 0, resetMs: 60_000 },
      },
    });
    assert.deepEqual(await c.budgets(['b1::0']), [{ spentUsd: 0, reservedUsd: 0.1 }]);
    const next = await c.admit(request(0, [rate({ rpm: 10 })], []));
    assert.deepEqual(next, { ok: true, requests: { limit: 10, remaining: 8, resetMs: 12_000 }, tokens: undefined });
  },
  'settle turns the reservation into the actual spend and frees the concurrency slot': async (c) => {
    const admitted = request(0.5, [rate({ concurrency: 1 })], [budget()]);
    assert.ok((await c.admit(admitted)).ok);
    assert.deepEqual(await c.admit(admitted), {
      ok: false,
      refusal: { kind: 'concurrency', scope: 'api_key', key: 'k:1', limit: 1, retryAfterMs: null },
    });
    assert.deepEqual(await c.budgets(['b1::0']), [{ spentUsd: 0, reservedUsd: 0.5 }]);
    const spends = await c.settle({ now: 1, admitted, actualTokens: 0, actualUsd: 0.2 });
    assert.deepEqual(spends, [{ key: 'b1::0', budgetId: 'b1', previousUsd: 0, spentUsd: 0.2 }]);
    assert.deepEqual(await c.budgets(['b1::0']), [{ spentUsd: 0.2, reservedUsd: 0 }]);
    assert.ok((await c.admit(admitted)).ok);
  },
  'settle corrects both ways: more than reserved, and reservations never below zero': async (c) => {
    const a = request(0.1, [], [budget(10)]);
    const b = request(0.3, [], [budget(10)]);
    assert.ok((await c.admit(a)).ok);
    assert.ok((await c.admit(b)).ok);
    assert.deepEqual(await c.settle({ now: 0, admitted: a, actualTokens: 0, actualUsd: 0.7 }), [
      { key: 'b1::0', budgetId: 'b1', previousUsd: 0, spentUsd: 0.7 },
    ]);
    assert.deepEqual(await c.budgets(['b1::0']), [{ spentUsd: 0.7, reservedUsd: 0.3 }]);
    // Settled twice (a caller's bug): the reservation floors at zero, the spend counts.
    await c.settle({ now: 0, admitted: b, actualTokens: 0, actualUsd: 0.1 });
    await c.settle({ now: 0, admitted: b, actualTokens: 0, actualUsd: 0.1 });
    assert.deepEqual(await c.budgets(['b1::0', 'unknown::0']), [
      { spentUsd: 0.9, reservedUsd: 0 },
      { spentUsd: 0, reservedUsd: 0 },
    ]);
  },
  'a spent budget refuses even a free call; alert-only budgets never refuse': async (c) => {
    await c.seedSpend('b1::0', 1);
    assert.deepEqual(await c.admit(request(0, [], [budget()])), {
      ok: false,
      refusal: { kind: 'budget', budgetId: 'b1', key: 'b1::0', limitUsd: 1, spentUsd: 1, reservedUsd: 0 },
    });
    assert.equal((await c.admit(request(5, [], [budget(1, false)]))).ok, true);
    assert.deepEqual(await c.budgetsWithPrefix('b1:'), [{ key: 'b1::0', spentUsd: 1, reservedUsd: 5 }]);
  },
  'a budget refuses the call that would take it over, counting reservations': async (c) => {
    assert.ok((await c.admit(request(0.6, [], [budget()]))).ok);
    assert.ok((await c.admit(request(0.4, [], [budget()]))).ok);
    const over = await c.admit(request(0.01, [], [budget()]));
    assert.ok(!over.ok && over.refusal.kind === 'budget' && over.refusal.reservedUsd === 1);
  },
  'budgetsWithPrefix lists the members of one budget; seedSpend keeps reservations': async (c) => {
    const members = [budget(5, true, 'b1:u1:0'), budget(5, true, 'b1:u2:0'), budget(5, true, 'b10:u1:0')];
    for (const m of members) assert.ok((await c.admit(request(0.25, [], [m]))).ok);
    await c.seedSpend('b1:u1:0', 1.5);
    await c.seedSpend('b1:u3:0', 0.1234567891234);
    const rows = (await c.budgetsWithPrefix('b1:')).sort((x, y) => x.key.localeCompare(y.key));
    assert.deepEqual(rows, [
      { key: 'b1:u1:0', spentUsd: 1.5, reservedUsd: 0.25 },
      { key: 'b1:u2:0', spentUsd: 0, reservedUsd: 0.25 },
      { key: 'b1:u3:0', spentUsd: 0.123456789, reservedUsd: 0 },
    ]);
    assert.deepEqual(await c.budgetsWithPrefix('b2:'), []);
  },
  'a fresh rpm limit admits exactly N at once, then one every 60/N s': async (c) => {
    const r = [rate({ rpm: 10 })];
    const results: AdmitResult[] = [];
    for (let i = 0; i < 11; i++) results.push(await c.admit(request(0, r, [], 0, 1_000_000)));
    assert.equal(results.filter((x) => x.ok).length, 10);
    assert.deepEqual(results[0], { ok: true, requests: { limit: 10, remaining: 9, resetMs: 6000 }, tokens: undefined });
    const last = results[10];
    assert.ok(!last.ok && last.refusal.kind === 'rpm' && last.refusal.retryAfterMs === 6000);
    assert.equal((await c.admit(request(0, r, [], 0, 1_005_999))).ok, false);
    assert.equal((await c.admit(request(0, r, [], 0, 1_006_000))).ok, true);
  },
  'TPM charges the estimate and settles to the actual tokens': async (c) => {
    const limits = [rate({ tpm: 1000 })];
    const first = request(0, limits, [], 800);
    assert.deepEqual(await c.admit(first), {
      ok: true,
      requests: undefined,
      tokens: { limit: 1000, remaining: 200, resetMs: 48_000 },
    });
    const refused = await c.admit(request(0, limits, [], 300));
    assert.ok(!refused.ok && refused.refusal.kind === 'tpm' && refused.refusal.retryAfterMs === 6000);
    await c.settle({ now: 0, admitted: first, actualTokens: 200, actualUsd: 0 });
    assert.ok((await c.admit(request(0, limits, [], 300))).ok);
  },
  'a request bigger than the whole tpm can never pass': async (c) => {
    assert.deepEqual(await c.admit(request(0, [rate({ tpm: 100 })], [], 101)), {
      ok: false,
      refusal: {
        kind: 'tpm',
        scope: 'api_key',
        key: 'k:1',
        limit: 100,
        retryAfterMs: null,
        tokens: { limit: 100, remaining: 100, resetMs: 0 },
      },
    });
  },
  'the headers show the tightest limit of each kind': async (c) => {
    const rates = [rate({ rpm: 100, tpm: 500 }), rate({ rpm: 5, tpm: 100_000 }, 'p:1', 'project')];
    const res = await c.admit(request(0, rates, [], 100));
    assert.deepEqual(res, {
      ok: true,
      requests: { limit: 5, remaining: 4, resetMs: 12_000 },
      tokens: { limit: 500, remaining: 400, resetMs: 12_000 },
    });
  },
  'raising a limit frees room at once; lowering it keeps the backlog': async (c) => {
    const call = async (rpm: number, key = 'k:1') => (await c.admit(request(0, [rate({ rpm }, key)], []))).ok;
    assert.deepEqual([await call(2), await call(2), await call(2)], [true, true, false]);
    assert.equal(await call(600), true);
    for (let i = 0; i < 5; i++) assert.equal(await call(10, 'k:2'), true);
    assert.equal(await call(2, 'k:2'), false);
    // The rescale held although refused: back at 10 per minute, the backlog is what it was.
    assert.equal(await call(10, 'k:2'), true);
  },
};

for (const target of targets) {
  describe(target.name, { skip: target.skip }, () => {
    for (const [name, run] of Object.entries(cases)) {
      test(name, async () => {
        const { counters, dispose } = await target.open();
        try {
          await run(counters);
        } finally {
          await dispose();
        }
      });
    }
  });
}

describe('LocalCounters and RedisCounters agree on random sequences', { skip: targets[1].skip }, () => {
  const opened: Array<{ dispose(): Promise<void> }> = [];
  after(async () => {
    for (const o of opened) await o.dispose();
  });

  for (const seed of [1, 2, 3, 4, 5]) {
    test(`seed ${seed}`, async () => {
      const redis = await openRedis();
      opened.push(redis);
      const local = new LocalCounters();
      const rnd = seededRandom(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
      const maybe = <T>(xs: readonly T[]): T | undefined => (rnd() < 0.3 ? undefined : pick(xs));
      const open: AdmitRequest[] = [];
      let now = 1_700_000_000_000;
      for (let step = 0; step < 400; step++) {
        now += pick([0, 0, 1, 37, 500, 3001, 20_000]);
        if (open.length > 0 && rnd() < 0.4) {
          const admitted = open.splice(Math.floor(rnd() * open.length), 1)[0];
          const s = {
            now,
            admitted,
            actualTokens: Math.floor(rnd() * 900),
            actualUsd: Math.round(rnd() * 1e6) / 1e7,
          };
          assert.deepEqual(await redis.counters.settle(s), local.settle(s), `settle at step ${step}`);
          continue;
        }
        const rates: RateCheck[] = [];
        for (const key of ['k:1', 'p:1', 'u:1:x']) {
          if (rnd() < 0.5) continue;
          const limits = { rpm: maybe([2, 3, 7, 60]), tpm: maybe([500, 1000, 4000]), concurrency: maybe([1, 2, 5]) };
          rates.push(rate(JSON.parse(JSON.stringify(limits)), key));
        }
        const budgets = ['b1:a:0', 'b1:b:0', 'b2::0']
          .filter(() => rnd() < 0.4)
          .map((key) => budget(pick([0.5, 2, 10]), rnd() < 0.8, key));
        const req = request(Math.round(rnd() * 1e5) / 1e6, rates, budgets, Math.floor(rnd() * 600), now);
        const expected = local.admit(req);
        assert.deepEqual(await redis.counters.admit(req), expected, `admit at step ${step}`);
        if (expected.ok) open.push(req);
      }
      for (const prefix of ['b1:', 'b2:']) {
        const byKey = (rows: Array<{ key: string }>) => rows.sort((x, y) => x.key.localeCompare(y.key));
        assert.deepEqual(
          byKey(await redis.counters.budgetsWithPrefix(prefix)),
          byKey(await local.budgetsWithPrefix(prefix)),
        );
      }
    });
  }
});

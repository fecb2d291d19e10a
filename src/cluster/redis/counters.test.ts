// RedisCounters beyond the shared contract (counters.contract.test.ts): several instances on one
// Redis, leases of instances that died, replayed settles, key expiry, once-claims.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AdmitRequest, BudgetCheck, RateCheck } from '../../ports/counters.ts';
import { LocalCounters } from '../local/counters.ts';
import { RedisCounters } from './counters.ts';
import { admitRequest, dropKeys, keysUnder, randomPrefix, redisSkip, testClient, untilReady } from './test-support.ts';

const skip = await redisSkip();

/** `n` instances sharing one prefix, each with its own connection. */
async function cluster(n: number, opts: { leaseMs?: number; budgetTtlMs?: number | null } = {}) {
  const prefix = randomPrefix();
  const instances = Array.from(
    { length: n },
    (_, i) => new RedisCounters({ client: testClient(), keyPrefix: prefix, instanceId: `i${i}`, ...opts }),
  );
  await Promise.all(instances.map((c) => untilReady(c.client)));
  return {
    prefix,
    instances,
    client: instances[0].client,
    async dispose() {
      try {
        await dropKeys(instances[0].client, prefix);
      } finally {
        await Promise.all(instances.map((c) => c.close()));
      }
    },
  };
}

const rate = (limits: RateCheck['limits']): RateCheck => ({ key: 'k:1', scope: 'api_key', limits });
const budget: BudgetCheck = { key: 'b1::0', budgetId: 'b1', limitUsd: 1, block: true };
const req = (over: Partial<AdmitRequest>): AdmitRequest => admitRequest(over, 1_700_000_000_000);

describe('RedisCounters across instances', { skip }, () => {
  test('rpm 30: a burst of 90 admissions over 3 instances admits exactly 30', async () => {
    const c = await cluster(3);
    try {
      const results = await Promise.all(
        Array.from({ length: 90 }, (_, i) => c.instances[i % 3].admit(req({ rates: [rate({ rpm: 30 })] }))),
      );
      assert.equal(results.filter((r) => r.ok).length, 30);
      const refused = results.find((r) => !r.ok);
      assert.ok(refused && !refused.ok && refused.refusal.kind === 'rpm' && refused.refusal.retryAfterMs === 2000);
    } finally {
      await c.dispose();
    }
  });

  test('a budget under 60 concurrent admissions over 3 instances admits what one instance would', async () => {
    const c = await cluster(3);
    const single = new LocalCounters();
    try {
      const calls = Array.from({ length: 60 }, () => req({ costUsd: 0.03, budgets: [budget] }));
      const expected = calls.map((r) => single.admit({ ...r })).filter((r) => r.ok).length;
      const results = await Promise.all(calls.map((r, i) => c.instances[i % 3].admit(r)));
      const admitted = calls.filter((_, i) => results[i].ok);
      assert.equal(admitted.length, expected);
      assert.equal(admitted.length, 33);
      assert.deepEqual(await c.instances[1].budgets(['b1::0']), [{ spentUsd: 0, reservedUsd: 0.99 }]);
      // Settled from the instance that admitted each call, at more than estimated.
      await Promise.all(
        admitted.map((r) =>
          c.instances[calls.indexOf(r) % 3].settle({ now: r.now, admitted: r, actualTokens: 0, actualUsd: 0.031 }),
        ),
      );
      assert.deepEqual(await c.instances[2].budgets(['b1::0']), [{ spentUsd: 1.023, reservedUsd: 0 }]);
      const after = await c.instances[0].admit(req({ budgets: [budget] }));
      assert.ok(!after.ok && after.refusal.kind === 'budget' && after.refusal.spentUsd === 1.023);
    } finally {
      await c.dispose();
    }
  });

  test('concurrency is shared, and a dead instance holds its slots only until their lease ends', async () => {
    const c = await cluster(2, { leaseMs: 1000 });
    try {
      const [a, b] = c.instances;
      const limits = [rate({ concurrency: 2 })];
      // Instance a takes both slots and dies without settling.
      assert.ok((await a.admit(req({ rates: limits }))).ok);
      assert.ok((await a.admit(req({ rates: limits }))).ok);
      const refused = await b.admit(req({ rates: limits }));
      assert.ok(!refused.ok && refused.refusal.kind === 'concurrency');
      const later = req({ now: 1_700_000_000_000 + 1000, rates: limits });
      assert.ok((await b.admit(later)).ok);
      assert.equal((await c.client.zcard(`${c.prefix}c:k:1`)) as number, 1);
      await b.settle({ now: later.now, admitted: later, actualTokens: 0, actualUsd: 0 });
      assert.equal(await c.client.zcard(`${c.prefix}c:k:1`), 0);
    } finally {
      await c.dispose();
    }
  });

  test("a dead instance's budget reservations are given back once their lease ends, and only once", async () => {
    const c = await cluster(2, { leaseMs: 1000 });
    const t0 = 1_700_000_000_000;
    try {
      const [a, b] = c.instances;
      // a reserves 0.6 of the 1.00 budget and dies without settling.
      const lost = req({ costUsd: 0.6, budgets: [budget] });
      assert.ok((await a.admit(lost)).ok);
      const early = await b.admit(req({ now: t0 + 999, costUsd: 0.5, budgets: [budget] }));
      assert.ok(!early.ok && early.refusal.kind === 'budget' && early.refusal.reservedUsd === 0.6);
      // At the end of the lease the next admission finds the reservation given back.
      const later = req({ now: t0 + 1000, costUsd: 0.5, budgets: [budget] });
      assert.ok((await b.admit(later)).ok);
      assert.deepEqual(await b.budgets(['b1::0']), [{ spentUsd: 0, reservedUsd: 0.5 }]);
      // A settle arriving after its lease counts the spend but does not give the estimate back twice.
      await a.settle({ now: t0 + 1100, admitted: lost, actualTokens: 0, actualUsd: 0.2 });
      assert.deepEqual(await b.budgets(['b1::0']), [{ spentUsd: 0.2, reservedUsd: 0.5 }]);
      await b.settle({ now: t0 + 1200, admitted: later, actualTokens: 0, actualUsd: 0.3 });
      assert.deepEqual(await a.budgets(['b1::0']), [{ spentUsd: 0.5, reservedUsd: 0 }]);
      assert.equal(await c.client.zcard(`${c.prefix}l:b1::0`), 0);
    } finally {
      await c.dispose();
    }
  });

  test('a replayed settle applies once; a replay for an admission never taken applies not at all', async () => {
    const c = await cluster(1);
    try {
      const [a] = c.instances;
      const admitted = req({ costUsd: 0.2, budgets: [budget] });
      assert.ok((await a.admit(admitted)).ok);
      const s = { now: admitted.now, admitted, actualTokens: 0, actualUsd: 0.1 };
      assert.deepEqual(await a.settle(s, { replay: true }), [
        { key: 'b1::0', budgetId: 'b1', previousUsd: 0, spentUsd: 0.1 },
      ]);
      assert.deepEqual(await a.settle(s, { replay: true }), []);
      const refused = req({ costUsd: 5, budgets: [budget] });
      assert.equal((await a.admit(refused)).ok, false);
      assert.deepEqual(await a.settle({ ...s, admitted: refused }, { replay: true }), []);
      assert.deepEqual(await a.budgets(['b1::0']), [{ spentUsd: 0.1, reservedUsd: 0 }]);
      // The admission's marker is gone with its settle: nothing stays behind but the counters.
      assert.deepEqual(await keysUnder(c.client, `${c.prefix}a:`), []);
    } finally {
      await c.dispose();
    }
  });

  test('rate keys expire once whole again; budget keys some time after their last use', async () => {
    const c = await cluster(1, { budgetTtlMs: 5 * 60_000 });
    try {
      const [a] = c.instances;
      const admitted = req({ tokens: 100, costUsd: 0.1, rates: [rate({ rpm: 10, tpm: 1000 })], budgets: [budget] });
      assert.ok((await a.admit(admitted)).ok);
      // Requests TAT 6 s ahead, tokens TAT 6 s ahead, plus a minute of slack.
      const ttl = await c.client.pttl(`${c.prefix}r:k:1`);
      assert.ok(ttl > 60_000 && ttl <= 66_000, `rate key ttl ${ttl}`);
      const budgetTtl = await c.client.pttl(`${c.prefix}b:b1::0`);
      assert.ok(budgetTtl > 4 * 60_000 && budgetTtl <= 5 * 60_000, `budget key ttl ${budgetTtl}`);
      // A counter that expired leaves its index entry behind until the next listing.
      await c.client.del(`${c.prefix}b:b1::0`);
      assert.deepEqual(await a.budgetsWithPrefix('b1:'), []);
      assert.equal(await c.client.zcard(`${c.prefix}bidx`), 0);
    } finally {
      await c.dispose();
    }
  });

  test('budget keys can be kept without expiry', async () => {
    const c = await cluster(1, { budgetTtlMs: null });
    try {
      await c.instances[0].seedSpend('b1::0', 0.5);
      assert.equal(await c.client.pttl(`${c.prefix}b:b1::0`), -1);
    } finally {
      await c.dispose();
    }
  });

  test('an rpm-only admission settles without a round trip', async () => {
    const c = await cluster(1);
    try {
      const admitted = req({ rates: [rate({ rpm: 10 })] });
      await c.instances[0].admit(admitted);
      assert.deepEqual(c.instances[0].settle({ now: admitted.now, admitted, actualTokens: 5, actualUsd: 0 }), []);
    } finally {
      await c.dispose();
    }
  });

  test('claimOnce: one instance wins, until the claim runs out', async () => {
    const c = await cluster(3);
    try {
      const wins = await Promise.all(c.instances.map((i) => i.claimOnce('alert:b1::0:0.5', 300)));
      assert.equal(wins.filter(Boolean).length, 1);
      await new Promise((r) => setTimeout(r, 350));
      assert.equal(await c.instances[2].claimOnce('alert:b1::0:0.5', 300), true);
    } finally {
      await c.dispose();
    }
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AdmitRequest } from '../../ports/counters.ts';
import { LocalCounters } from './counters.ts';

const budget = (amountUsd: number, limitUsd = 1, block = true) => ({
  key: 'b1::0',
  budgetId: 'b1',
  limitUsd,
  block,
  amountUsd,
});

test('a refusal takes nothing: the other checks of the same admission are untouched', () => {
  const c = new LocalCounters();
  const req = (amount: number): AdmitRequest => ({
    now: 0,
    rates: [{ key: 'k:1', scope: 'api_key', limits: { rpm: 5, concurrency: 3 }, tokens: 10 }],
    budgets: [budget(amount)],
  });
  assert.equal(c.admit(req(0.6)).ok, true);
  const refused = c.admit(req(0.6));
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.refusal.kind, 'budget');
  // The refused call neither used an rpm slot nor a concurrency slot: 4 more fit each.
  const ok = c.admit(req(0.1));
  assert.ok(ok.ok && ok.requests?.remaining === 3);
});

test('settle turns the reservation into the actual spend and frees the concurrency slot', async () => {
  const c = new LocalCounters();
  const admitted: AdmitRequest = {
    now: 0,
    rates: [{ key: 'k:1', scope: 'api_key', limits: { concurrency: 1 }, tokens: 0 }],
    budgets: [budget(0.5)],
  };
  assert.ok(c.admit(admitted).ok);
  assert.equal(c.admit(admitted).ok, false);
  assert.deepEqual(await c.budgets(['b1::0']), [{ spentUsd: 0, reservedUsd: 0.5 }]);
  const spends = c.settle({ now: 1, admitted, tokens: 0, costUsd: 0.2 });
  assert.deepEqual(spends, [{ key: 'b1::0', budgetId: 'b1', previousUsd: 0, spentUsd: 0.2 }]);
  assert.deepEqual(await c.budgets(['b1::0']), [{ spentUsd: 0.2, reservedUsd: 0 }]);
  assert.ok(c.admit(admitted).ok);
});

test('a spent budget refuses even a free call; alert-only budgets never refuse', async () => {
  const c = new LocalCounters();
  await c.seedSpend('b1::0', 1);
  assert.equal(c.admit({ now: 0, rates: [], budgets: [budget(0)] }).ok, false);
  assert.equal(c.admit({ now: 0, rates: [], budgets: [budget(5, 1, false)] }).ok, true);
  assert.deepEqual(await c.budgetsWithPrefix('b1:'), [{ key: 'b1::0', spentUsd: 1, reservedUsd: 5 }]);
});

test('raising a limit frees room at once; lowering it keeps the backlog', () => {
  const c = new LocalCounters();
  const call = (rpm: number, now: number) =>
    c.admit({ now, rates: [{ key: 'k:1', scope: 'api_key', limits: { rpm }, tokens: 0 }], budgets: [] }).ok;
  assert.deepEqual([call(2, 0), call(2, 0), call(2, 0)], [true, true, false]);
  // 2 of 600 per minute used: plenty left.
  assert.equal(call(600, 0), true);
  const c2 = new LocalCounters();
  const call2 = (rpm: number) =>
    c2.admit({ now: 0, rates: [{ key: 'k:1', scope: 'api_key', limits: { rpm }, tokens: 0 }], budgets: [] }).ok;
  for (let i = 0; i < 5; i++) assert.equal(call2(10), true);
  // Half of the minute's allowance spent; at 2 per minute that is a full minute's worth already.
  assert.equal(call2(2), false);
});

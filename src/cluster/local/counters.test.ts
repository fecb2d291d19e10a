import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AdmitRequest, BudgetCheck, RateCheck } from '../../ports/counters.ts';
import { LocalCounters } from './counters.ts';

const budget = (limitUsd = 1, block = true): BudgetCheck => ({ key: 'b1::0', budgetId: 'b1', limitUsd, block });
const rate = (limits: RateCheck['limits']): RateCheck => ({ key: 'k:1', scope: 'api_key', limits });
const request = (costUsd: number, rates: RateCheck[], budgets: BudgetCheck[], tokens = 0): AdmitRequest => ({
  now: 0,
  tokens,
  costUsd,
  rates,
  budgets,
});

test('a refusal takes nothing: the other checks of the same admission are untouched', () => {
  const c = new LocalCounters();
  const limits = [rate({ rpm: 5, concurrency: 3 })];
  assert.equal(c.admit(request(0.6, limits, [budget()], 10)).ok, true);
  const refused = c.admit(request(0.6, limits, [budget()], 10));
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.refusal.kind, 'budget');
  // The refused call neither used an rpm slot nor a concurrency slot: 4 more fit each.
  const ok = c.admit(request(0.1, limits, [budget()], 10));
  assert.ok(ok.ok && ok.requests?.remaining === 3);
});

test('settle turns the reservation into the actual spend and frees the concurrency slot', async () => {
  const c = new LocalCounters();
  const admitted = request(0.5, [rate({ concurrency: 1 })], [budget()]);
  assert.ok(c.admit(admitted).ok);
  assert.equal(c.admit(admitted).ok, false);
  assert.deepEqual(await c.budgets(['b1::0']), [{ spentUsd: 0, reservedUsd: 0.5 }]);
  const spends = c.settle({ now: 1, admitted, actualTokens: 0, actualUsd: 0.2 });
  assert.deepEqual(spends, [{ key: 'b1::0', budgetId: 'b1', previousUsd: 0, spentUsd: 0.2 }]);
  assert.deepEqual(await c.budgets(['b1::0']), [{ spentUsd: 0.2, reservedUsd: 0 }]);
  assert.ok(c.admit(admitted).ok);
});

test('a spent budget refuses even a free call; alert-only budgets never refuse', async () => {
  const c = new LocalCounters();
  await c.seedSpend('b1::0', 1);
  assert.equal(c.admit(request(0, [], [budget()])).ok, false);
  assert.equal(c.admit(request(5, [], [budget(1, false)])).ok, true);
  assert.deepEqual(await c.budgetsWithPrefix('b1:'), [{ key: 'b1::0', spentUsd: 1, reservedUsd: 5 }]);
});

test('TPM charges the estimate and settles to the actual tokens', () => {
  const c = new LocalCounters();
  const limits = [rate({ tpm: 1000 })];
  const first = request(0, limits, [], 800);
  assert.ok(c.admit(first).ok);
  assert.equal(c.admit(request(0, limits, [], 300)).ok, false);
  c.settle({ now: 0, admitted: first, actualTokens: 200, actualUsd: 0 });
  assert.ok(c.admit(request(0, limits, [], 300)).ok);
});

test('raising a limit frees room at once; lowering it keeps the backlog', () => {
  const c = new LocalCounters();
  const call = (counters: LocalCounters, rpm: number) => counters.admit(request(0, [rate({ rpm })], [])).ok;
  assert.deepEqual([call(c, 2), call(c, 2), call(c, 2)], [true, true, false]);
  // 2 of 600 per minute used: plenty left.
  assert.equal(call(c, 600), true);
  const c2 = new LocalCounters();
  for (let i = 0; i < 5; i++) assert.equal(call(c2, 10), true);
  // Half of the minute's allowance spent; at 2 per minute that is a full minute's worth already.
  assert.equal(call(c2, 2), false);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adjustTat, gcra } from './gcra.ts';

function burst(perMinute: number, n: number, now = 1_000_000) {
  let tat = 0;
  const out: boolean[] = [];
  let last = gcra(tat, now, perMinute, 1);
  for (let i = 0; i < n; i++) {
    last = gcra(tat, now, perMinute, 1);
    out.push(last.ok);
    if (last.ok) tat = last.tat;
  }
  return { admitted: out.filter(Boolean).length, last, tat };
}

test('a fresh limit of N per minute admits exactly N at once, then one every 60/N s', () => {
  const { admitted, last, tat } = burst(10, 30);
  assert.equal(admitted, 10);
  assert.equal(last.ok, false);
  assert.equal(last.retryAfterMs, 6000);
  assert.equal(last.remaining, 0);
  assert.equal(gcra(tat, 1_000_000 + 5999, 10, 1).ok, false);
  assert.equal(gcra(tat, 1_000_000 + 6000, 10, 1).ok, true);
});

test('remaining and reset count down with each request', () => {
  const first = gcra(0, 0, 10, 1);
  assert.deepEqual([first.remaining, first.resetMs], [9, 6000]);
  const second = gcra(first.tat, 0, 10, 1);
  assert.deepEqual([second.remaining, second.resetMs], [8, 12000]);
  // A minute later the counter is whole again.
  assert.equal(gcra(second.tat, 60_000, 10, 1).remaining, 9);
});

test('token costs: a request bigger than the whole limit never passes; corrections move the TAT', () => {
  assert.equal(gcra(0, 0, 1000, 1001).retryAfterMs, Number.POSITIVE_INFINITY);
  const a = gcra(0, 0, 1000, 800);
  assert.ok(a.ok);
  assert.equal(gcra(a.tat, 0, 1000, 300).ok, false);
  // The call used 200 tokens, not 800: the 600 are given back.
  const corrected = adjustTat(a.tat, 0, 1000, -600);
  assert.equal(gcra(corrected, 0, 1000, 300).ok, true);
  // Never refunded into the past.
  assert.equal(adjustTat(a.tat, 50_000, 1000, -1000), 48_000);
});

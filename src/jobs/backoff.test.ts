import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffMs } from './backoff.ts';

const policy = { baseMs: 100, capMs: 1000 };

test('delays double per attempt within the upper half of their ceiling, up to the cap', () => {
  // [attempt, random draw, delay]; the last shows huge attempt numbers stay finite.
  const cases: Array<[number, number, number]> = [
    [1, 0, 50],
    [1, 1, 100],
    [3, 0, 200],
    [3, 1, 400],
    [10, 1, 1000],
    [500, 0.5, 750],
  ];
  for (const [attempt, random, ms] of cases) {
    assert.equal(
      backoffMs(attempt, policy, () => random),
      ms,
      `attempt ${attempt}, random ${random}`,
    );
  }
});

test('jitter spreads jobs that failed together', () => {
  const delays = new Set(Array.from({ length: 50 }, () => backoffMs(4, policy)));
  assert.ok(delays.size > 10);
  for (const d of delays) assert.ok(d >= 400 && d <= 800);
});

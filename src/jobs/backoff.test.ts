import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffMs } from './backoff.ts';

const policy = { baseMs: 100, capMs: 1000 };

test('delays double per attempt within the upper half of their ceiling, up to the cap', () => {
  assert.equal(
    backoffMs(1, policy, () => 0),
    50,
  );
  assert.equal(
    backoffMs(1, policy, () => 1),
    100,
  );
  assert.equal(
    backoffMs(3, policy, () => 0),
    200,
  );
  assert.equal(
    backoffMs(3, policy, () => 1),
    400,
  );
  assert.equal(
    backoffMs(10, policy, () => 1),
    1000,
  );
  assert.equal(
    backoffMs(500, policy, () => 0.5),
    750,
    'huge attempt numbers stay finite',
  );
});

test('jitter spreads jobs that failed together', () => {
  const delays = new Set(Array.from({ length: 50 }, () => backoffMs(4, policy)));
  assert.ok(delays.size > 10);
  for (const d of delays) assert.ok(d >= 400 && d <= 800);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId, pooledPrng } from './ids.ts';

test('ids are prefixed, unique and strictly increasing, also within one millisecond', () => {
  const ids = Array.from({ length: 5000 }, () => newId('req'));
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^req_[0-9a-hjkmnp-tv-z]{26}$/);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `${ids[i - 1]} < ${ids[i]}`);
});

test('the pooled PRNG picks each of the 32 characters evenly', () => {
  const counts = new Array<number>(32).fill(0);
  const n = 64_000;
  for (let i = 0; i < n; i++) {
    const v = pooledPrng();
    assert.ok(v >= 0 && v < 1);
    counts[Math.floor(v * 32)]++;
  }
  // Each bucket expects 2,000; 10% either way is over 7 standard deviations.
  for (const [i, c] of counts.entries()) assert.ok(Math.abs(c - n / 32) < n / 320, `bucket ${i}: ${c}`);
});

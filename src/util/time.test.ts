import assert from 'node:assert/strict';
import test from 'node:test';
import { isoAt } from './time.ts';

test('isoAt matches Date#toISOString, within a second, across seconds and outside the cached range', () => {
  const base = Date.UTC(2026, 10, 27, 23, 59, 58, 0);
  const cases = [
    base,
    base + 1,
    base + 9,
    base + 10,
    base + 99,
    base + 100,
    base + 999,
    base + 1000,
    base + 1001,
    base + 2500,
  ];
  cases.push(
    0,
    1,
    999,
    -1,
    -1000,
    -1001,
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(10000, 0, 1),
    -62198755200001,
  );
  for (let i = 0; i < 2000; i++) cases.push(base - 5_000_000 + Math.floor(Math.random() * 10_000_000));
  for (const ms of cases) assert.equal(isoAt(ms), new Date(ms).toISOString(), `at ${ms}`);
});

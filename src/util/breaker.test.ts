import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Breaker } from './breaker.ts';

test('transitions: one "open" per failure streak, one "closed" when a success ends it', () => {
  const b = new Breaker({ failureThreshold: 2, cooldownMs: 100, maxCooldownMs: 1000 });
  const seen: Array<[string, boolean, number]> = [];
  b.onTransition((key, coolingDown, until) => seen.push([key, coolingDown, until]));
  b.failure('k', 1000);
  assert.deepEqual(seen, []);
  b.failure('k', 1000);
  assert.deepEqual(seen, [['k', true, 1100]]);
  // The probe after the cooldown fails: cooling down again, but not a new transition.
  b.failure('k', 1200);
  assert.equal(seen.length, 1);
  assert.ok(b.coolingDown('k', 1250));
  b.success('k');
  assert.deepEqual(seen[1], ['k', false, 0]);
  // A success without an open breaker, or on an unknown key, is no transition.
  b.failure('k', 2000);
  b.success('k');
  b.success('other');
  assert.equal(seen.length, 2);
});

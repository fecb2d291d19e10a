// The tracker's latency window is a fixed ring per candidate: these pin what callers observe of it
// (the last maxSamples successes, the time window, the median) and that the breaker is per candidate.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HealthTracker } from './health.ts';
import type { CandidateRef } from './types.ts';

const ref = (model: string, vendor: CandidateRef['vendor'] = 'openai'): CandidateRef => ({
  vendor,
  vendorAsSent: vendor,
  model,
});

test('the p50 covers the last maxSamples successes once the ring wraps', () => {
  const h = new HealthTracker({ maxSamples: 3 });
  for (const ms of [100, 200, 300, 1, 2]) h.record(ref('m'), true, ms, 1000);
  // kept: 300, 1, 2
  assert.equal(h.p50(ref('m'), 1000), 2);
  h.record(ref('m'), true, 4, 1000);
  // kept: 1, 2, 4
  assert.equal(h.p50(ref('m'), 1000), 2);
  h.record(ref('m'), true, 10, 1000);
  // kept: 2, 4, 10 (an even count would average the middle two; see below)
  assert.equal(h.p50(ref('m'), 1000), 4);
});

test('samples older than the window are left out, and an even count averages the middle two', () => {
  const h = new HealthTracker({ maxSamples: 10, windowMs: 100 });
  h.record(ref('m'), true, 1000, 0);
  h.record(ref('m'), true, 10, 50);
  h.record(ref('m'), true, 20, 60);
  // at 100 all three are in the window: 10, 20, 1000
  assert.equal(h.p50(ref('m'), 100), 20);
  assert.equal(h.p50(ref('m'), 101), 15);
  assert.equal(h.p50(ref('m'), 1000), undefined);
});

test('a fresh ref object for the same vendor and model finds the same candidate', () => {
  const h = new HealthTracker({ failureThreshold: 2, cooldownMs: 1000 });
  h.record(ref('m'), true, 7, 0);
  assert.equal(h.p50({ vendor: 'openai', vendorAsSent: 'oai', model: 'm' }, 0), 7);
  assert.equal(h.p50(ref('m', 'anthropic'), 0), undefined, 'another vendor is another candidate');
  assert.equal(h.p50(ref('other'), 0), undefined);
});

test('failures open the breaker of their candidate only, and a success closes it', () => {
  const h = new HealthTracker({ failureThreshold: 2, cooldownMs: 1000 });
  h.record(ref('m'), false, 5, 0);
  assert.equal(h.coolingDown(ref('m'), 1), false);
  h.record(ref('m'), false, 5, 0);
  assert.equal(h.coolingDown(ref('m'), 1), true);
  assert.equal(h.coolingDown(ref('m'), 1000), false, 'the cooldown ends');
  assert.equal(h.coolingDown(ref('m', 'anthropic'), 1), false);
  assert.equal(h.p50(ref('m'), 1), undefined, 'failures add no latency sample');
  h.record(ref('m'), true, 5, 2);
  assert.equal(h.coolingDown(ref('m'), 3), false);
});

test('maxSamples 0 keeps no latencies, and reset forgets everything', () => {
  const none = new HealthTracker({ maxSamples: 0 });
  none.record(ref('m'), true, 5, 0);
  assert.equal(none.p50(ref('m'), 0), undefined);
  const h = new HealthTracker({ failureThreshold: 1 });
  h.record(ref('m'), true, 5, 0);
  h.record(ref('n'), false, 5, 0);
  h.reset();
  assert.equal(h.p50(ref('m'), 0), undefined);
  assert.equal(h.coolingDown(ref('n'), 0), false);
});

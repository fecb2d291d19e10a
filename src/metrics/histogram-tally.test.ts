import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { seededRandom } from '../../test/helpers/random.ts';
import { CALL_BUCKETS, OVERHEAD_BUCKETS } from './gateway-metrics.ts';
import { Metrics } from './registry.ts';

type Label = 'family' | 'endpoint';
const SETS: Array<Record<Label, string>> = [
  { family: 'alpha', endpoint: 'chat_completions' },
  { family: 'beta', endpoint: 'messages' },
  { family: 'alpha', endpoint: 'embeddings' },
  { family: 'other', endpoint: 'other' },
];

/** The same observations into prom-client's own histogram and into a tally: both registries' texts. */
async function both(buckets: readonly number[], observations: Array<[number, number]>, reset = false) {
  const reference = new Registry();
  const promHistogram = new Histogram<Label>({
    name: 'switchyard_test_seconds',
    help: 'A test histogram',
    labelNames: ['family', 'endpoint'],
    buckets: [...buckets],
    registers: [reference],
  });
  const metrics = new Metrics();
  const tally = metrics.histogram<Label>({
    name: 'switchyard_test_seconds',
    help: 'A test histogram',
    labelNames: ['family', 'endpoint'],
    buckets,
  });
  // Every series is resolved up front, as GatewayMetrics does; the last one is never observed.
  const series = SETS.map((labels) => tally.series(labels));
  const children = SETS.map((labels) => promHistogram.labels(labels.family, labels.endpoint));
  const feed = (list: Array<[number, number]>) => {
    for (const [i, value] of list) {
      series[i].observe(value);
      children[i].observe(value);
    }
  };
  feed(observations);
  if (reset) {
    reference.resetMetrics();
    metrics.registry.resetMetrics();
    feed(observations.slice(0, 5));
  }
  return {
    expected: await reference.metrics(),
    actual: await metrics.registry.metrics(),
    expectedJson: await reference.getMetricsAsJSON(),
    actualJson: await metrics.registry.getMetricsAsJSON(),
  };
}

function observations(seed: number, n: number, scale: number): Array<[number, number]> {
  const rand = seededRandom(seed);
  const out: Array<[number, number]> = [];
  // Series 2 is observed first, series 3 never: the export follows first observations, not creation.
  out.push([2, 0]);
  for (let i = 0; i < n; i++) out.push([Math.floor(rand() * 3), rand() * rand() * scale]);
  return out;
}

test('a histogram tally exports what prom-client exports for the same observations', async () => {
  for (const [buckets, scale] of [
    [CALL_BUCKETS, 400],
    [OVERHEAD_BUCKETS, 2],
  ] as const) {
    // Bounds themselves (le is inclusive) and values past the last bound (only +Inf counts them).
    const edges: Array<[number, number]> = buckets.map((b, i) => [i % 3, b]);
    edges.push([0, buckets[buckets.length - 1] * 10]);
    const { expected, actual, expectedJson, actualJson } = await both(buckets, [
      ...observations(7, 2000, scale),
      ...edges,
    ]);
    assert.match(actual, /_bucket\{le="\+Inf",family="alpha",endpoint="embeddings"\} \d+\n/);
    assert.equal(actual, expected);
    assert.deepEqual(actualJson, expectedJson);
  }
});

test('a histogram tally with nothing observed exports only its help and type, as prom-client does', async () => {
  const { expected, actual } = await both(CALL_BUCKETS, []);
  assert.equal(actual, expected);
  assert.doesNotMatch(actual, /_bucket/);
});

test('after a registry reset, series handed out before it count again from zero', async () => {
  const { expected, actual } = await both(CALL_BUCKETS, observations(3, 50, 10), true);
  assert.equal(actual, expected);
  const counts = [...actual.matchAll(/_count\{[^}]*\} (\d+)$/gm)].map((m) => Number(m[1]));
  assert.equal(
    counts.reduce((a, b) => a + b, 0),
    5,
  );
});

test('non-finite values are dropped', async () => {
  const m = new Metrics();
  const s = m.histogram({ name: 'switchyard_nan_seconds', help: 'x', buckets: [1] }).series({});
  s.observe(Number.NaN);
  s.observe(Number.POSITIVE_INFINITY);
  s.observe(0.5);
  assert.match(await m.registry.metrics(), /^switchyard_nan_seconds_count 1$/m);
});

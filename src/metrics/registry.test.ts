import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Metrics } from './registry.ts';

test('metric names carry the switchyard_ prefix', () => {
  const m = new Metrics();
  assert.throws(() => m.counter({ name: 'cache_hits_total', help: 'x' }), /switchyard_/);
  assert.throws(() => m.counter({ name: 'switchyard_Hits', help: 'x' }), /switchyard_/);
});

test('features register their own metrics; gauges are read at scrape time', async () => {
  const m = new Metrics();
  const hits = m.counter({ name: 'switchyard_cache_hits_total', help: 'Cache hits', labelNames: ['mode'] });
  let depth = 3;
  m.gauge({ name: 'switchyard_test_depth', help: 'A depth', read: () => depth });
  hits.labels('exact').inc();
  depth = 7;
  const text = await m.scrape();
  assert.match(text, /^switchyard_cache_hits_total\{mode="exact"\} 1$/m);
  assert.match(text, /^switchyard_test_depth 7$/m);
  assert.match(text, /^process_cpu_user_seconds_total /m);
});

test('two instances never share series', async () => {
  const a = new Metrics();
  const b = new Metrics();
  a.counter({ name: 'switchyard_calls_total', help: 'x' }).inc(5);
  b.counter({ name: 'switchyard_calls_total', help: 'x' });
  assert.match(await a.scrape(), /^switchyard_calls_total 5$/m);
  assert.match(await b.scrape(), /^switchyard_calls_total 0$/m);
});

test('a tally counts in plain numbers and hands the sums over at each scrape', async () => {
  const m = new Metrics();
  const tally = m.tally({ name: 'switchyard_tally_total', help: 'x', labelNames: ['kind'] });
  const a = tally.series({ kind: 'a' });
  a.inc();
  a.inc(2);
  tally.series({ kind: 'b' }).inc(Number.NaN);
  assert.match(await m.scrape(), /^switchyard_tally_total\{kind="a"\} 3$/m);
  a.inc();
  const text = await m.scrape();
  assert.match(text, /^switchyard_tally_total\{kind="a"\} 4$/m);
  assert.doesNotMatch(text, /kind="b"/);
});

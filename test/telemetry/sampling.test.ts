// OTEL_TRACES_SAMPLER as tracing.ts decides it per call: the parent-based samplers follow the
// caller's sampled flag, the others (and calls without a caller span) ask the SDK's root sampler.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig, type TelemetryConfig } from '../../src/config.ts';
import { parseTraceparent } from '../../src/telemetry/spans.ts';
import { samplingOf } from '../../src/telemetry/tracing.ts';

const config = (sampler: string, arg?: string): TelemetryConfig => {
  const t = loadConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    OTEL_TRACES_SAMPLER: sampler,
    ...(arg === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: arg }),
  }).telemetry;
  assert.ok(t);
  return t;
};
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const sampledCaller = parseTraceparent(`00-${TRACE}-b7ad6b7169203331-01`, undefined);
const unsampledCaller = parseTraceparent(`00-${TRACE}-b7ad6b7169203331-00`, undefined);

it('parent-based samplers follow the caller, and their root sampler decides without one', () => {
  const on = samplingOf(config('parentbased_always_on'));
  assert.deepEqual(
    [on(sampledCaller, TRACE, 'm'), on(unsampledCaller, TRACE, 'm'), on(undefined, TRACE, 'm')],
    [true, false, true],
  );
  const off = samplingOf(config('parentbased_always_off'));
  assert.deepEqual([off(sampledCaller, TRACE, 'm'), off(undefined, TRACE, 'm')], [true, false]);
});

it('always_on, always_off and traceidratio ignore the caller', () => {
  assert.equal(samplingOf(config('always_on'))(unsampledCaller, TRACE, 'm'), true);
  assert.equal(samplingOf(config('always_off'))(sampledCaller, TRACE, 'm'), false);
  assert.equal(samplingOf(config('traceidratio', '0'))(sampledCaller, TRACE, 'm'), false);
  assert.equal(samplingOf(config('traceidratio', '1'))(unsampledCaller, TRACE, 'm'), true);
});

it('a malformed or invalid traceparent is no caller at all', () => {
  for (const bad of [
    'garbage',
    `00-${TRACE}-b7ad6b7169203331-01-extra`,
    `ff-${TRACE}-b7ad6b7169203331-01`,
    `00-${'0'.repeat(32)}-b7ad6b7169203331-01`,
    `00-${TRACE}-${'0'.repeat(16)}-01`,
    `00-${TRACE.toUpperCase()}-b7ad6b7169203331-01`,
  ])
    assert.equal(parseTraceparent(bad, undefined), undefined, bad);
  const future = parseTraceparent(`01-${TRACE}-b7ad6b7169203331-01-more`, 'a=1, b=2');
  assert.equal(future?.traceHex, TRACE, 'a later version may carry more fields');
  assert.equal(future?.traceState, 'a=1, b=2');
});

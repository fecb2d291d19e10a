import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRecord } from '../../test/helpers/call-record.ts';
import type { CallRecord, HealthSample } from '../pipeline/record.ts';
import { forEachUpstreamFailure, overheadMs, upstreamMs } from './upstream-share.ts';

function record(over: Partial<CallRecord>): CallRecord {
  return callRecord({ credentialId: 'prov_1', ...over });
}

const trace = (policy: string, latencies: number[]) => ({
  policy,
  attempts: latencies.map((latency_ms) => ({ model: 'm', provider: 'openai', latency_ms })),
});

const ref = { vendor: 'openai' as const, vendorAsSent: 'openai', model: 'gpt-4o-mini' };
const fail = (s: Partial<HealthSample>): HealthSample => ({
  ok: false,
  latencyMs: 5,
  status: 429,
  kind: 'rate_limit',
  ...s,
});

test('sequential attempts add up; an ensemble waits for its longest', () => {
  assert.equal(upstreamMs(record({ trace: trace('fallback', [30, 40]) })), 70);
  assert.equal(overheadMs(record({ trace: trace('fallback', [30, 40]) })), 30);
  assert.equal(upstreamMs(record({ trace: trace('ensemble', [30, 40]) })), 40);
});

test('a call that reached no upstream is all overhead; a cache hit too', () => {
  assert.equal(overheadMs(record({ vendor: null, modelUsed: null, status: 400 })), 100);
  assert.equal(overheadMs(record({ vendor: null, modelUsed: null, trace: trace('cache', []) })), 100);
});

test('without a trace, credential tries are timed by their samples; unsampled calls are unknown', () => {
  const samples: HealthSample[] = [
    { ref, credentialId: 'prov_1', ok: false, latencyMs: 10, status: 429, kind: 'rate_limit' },
    { ref, credentialId: 'prov_2', ok: true, latencyMs: 20, status: 200, kind: 'ok' },
  ];
  assert.equal(upstreamMs(record({ healthSamples: samples })), 30);
  // The caller's own key: the upstream was called but nothing timed it.
  assert.equal(overheadMs(record({ credentialId: null })), undefined);
});

test('a stream that started is not measured: its relay time is not in the record', () => {
  const streamed = record({ trace: trace('direct', [20]), responseBody: { streamed: true, text: 'hi' } });
  assert.equal(overheadMs(streamed), undefined);
});

test('failures: every failed credential try once, plus what the tries do not show', () => {
  const seen: string[] = [];
  const collect = (r: CallRecord) => {
    seen.length = 0;
    forEachUpstreamFailure(r, (vendor, kind) => seen.push(`${vendor}:${kind}`));
    return [...seen];
  };
  // Routed: credential tries carry the vendor; the attempt's own ref sample repeats them.
  const routed = [
    fail({ credentialId: 'prov_1', vendor: 'openai', kind: 'authentication', status: 401 }),
    { credentialId: 'prov_2', vendor: 'openai' as const, ok: true, latencyMs: 5, status: 200, kind: 'ok' },
    { ref, ok: true, latencyMs: 10, status: 200, kind: 'ok' },
  ];
  assert.deepEqual(collect(record({ healthSamples: routed })), ['openai:authentication']);
  // A failed call whose error is also its last sample counts once.
  const direct = [fail({ ref, credentialId: 'prov_1' })];
  const upstreamError = { status: 429, kind: 'rate_limit', message: 'slow down', retryable: true };
  assert.deepEqual(collect(record({ status: 429, healthSamples: direct, error: upstreamError })), [
    'openai:rate_limit',
  ]);
  // The caller's own key is never sampled: the error says it.
  assert.deepEqual(collect(record({ vendor: 'vendor_1', status: 429, error: upstreamError })), ['vendor_1:rate_limit']);
  // A stream that broke after its headers: the try was fine, the stream was not.
  const broke = { status: 502, kind: 'server', message: 'upstream stream broke', retryable: false };
  const ok = [{ ref, credentialId: 'prov_1', ok: true, latencyMs: 5, status: 200, kind: 'ok' }];
  assert.deepEqual(
    collect(record({ status: 502, healthSamples: ok, error: broke, responseBody: { streamed: true } })),
    ['openai:server'],
  );
  // The gateway's own refusals are not upstream errors.
  assert.deepEqual(
    collect(record({ vendor: null, status: 400, error: { message: 'bad', code: 'invalid_model' } })),
    [],
  );
  assert.deepEqual(collect(record({ error: { warning: 'no price known' } })), []);
});

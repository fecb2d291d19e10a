import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRecord } from '../../test/helpers/call-record.ts';
import type { CallRecord } from '../pipeline/record.ts';
import { GatewayMetrics, metricsHook } from './gateway-metrics.ts';
import { Metrics } from './registry.ts';

const base: CallRecord = callRecord({
  latencyMs: 12,
  ttfbMs: 8,
  usage: { input: 10, output: 5, cacheRead: 2 },
  costUsd: 0.001,
  trace: { policy: 'direct', attempts: [{ latency_ms: 11 }] },
});

function setup() {
  const metrics = new Metrics();
  const hook = metricsHook(new GatewayMetrics(metrics, { inFlight: () => 2, logQueueDepth: () => 9 }));
  return { metrics, hook };
}

test('callers choosing model names cannot grow the series', async () => {
  const { metrics, hook } = setup();
  for (let i = 0; i < 500; i++) hook({ ...base, modelUsed: `custom-${i}`, modelRequested: `openai/custom-${i}` });
  const requests = await metrics.registry.getSingleMetric('switchyard_requests_total')?.get();
  assert.deepEqual(
    requests?.values.map((v) => [v.labels.model, v.value]),
    [['other', 500]],
  );
});

test('one call: its counters, histograms and tokens; gauges read at scrape time', async () => {
  const { metrics, hook } = setup();
  hook(base);
  hook({ ...base, status: 502, ttfbMs: null, usage: { input: 0, output: 0 }, costUsd: 0 });
  const text = await metrics.scrape();
  const line = (re: RegExp) => assert.match(text, re);
  line(
    /^switchyard_requests_total\{family="alpha",endpoint="chat_completions",provider="openai",model="gpt-4o-mini",status_class="2xx"\} 1$/m,
  );
  line(/^switchyard_requests_total\{[^}]*status_class="5xx"\} 1$/m);
  line(/^switchyard_request_duration_seconds_count\{family="alpha",endpoint="chat_completions"\} 2$/m);
  line(/^switchyard_time_to_first_byte_seconds_count\{family="alpha",endpoint="chat_completions"\} 1$/m);
  line(/^switchyard_gateway_overhead_seconds_count\{family="alpha",endpoint="chat_completions"\} 2$/m);
  line(/^switchyard_tokens_total\{direction="input"\} 10$/m);
  line(/^switchyard_tokens_total\{direction="cache_read"\} 2$/m);
  line(/^switchyard_cost_usd_total 0\.001$/m);
  line(/^switchyard_in_flight_requests 2$/m);
  line(/^switchyard_log_queue_depth 9$/m);
});

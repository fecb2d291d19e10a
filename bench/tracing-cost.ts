// What tracing costs a call in CPU (issue 35): the tracing feature's own work per call (server span
// opened at arrival and continued from a caller's traceparent, one attempt span with its traceparent
// injected, both finished from the call record) and the export of those spans (OTLP protobuf
// encoding and the HTTP request), with always-on sampling. The OTLP sink runs in a child process so
// that receiving is not counted. With tracing off the gateway has no such hook and loads no
// OpenTelemetry SDK (test/telemetry/off.test.ts), so its cost is nil.
//
//   node --import tsx bench/tracing-cost.ts [calls]
import { spawn } from 'node:child_process';
import { loadConfig } from '../src/config.ts';
import type { FamilyCodec } from '../src/families/shared/codec.ts';
import type { ChatCall, RoutedTarget } from '../src/pipeline/call.ts';
import type { PipelineDeps } from '../src/pipeline/deps.ts';
import { endCall, newCall } from '../src/pipeline/lifecycle.ts';
import { callRecord, recordParts } from '../src/pipeline/record.ts';
import { startTelemetry } from '../src/telemetry/index.ts';

const calls = Number(process.argv[2] ?? 20_000);
const BATCH = 500;
const SINK = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => s.writeHead(200).end()); })
  .listen(0, '127.0.0.1', function () { process.send(this.address().port); });`;
const sink = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const port = await new Promise<number>((r) => sink.once('message', (m) => r(Number(m))));
const config = loadConfig({
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
  OTEL_TRACES_SAMPLER: 'always_on',
});
const dropped: Record<string, number> = {};
const telemetry = await startTelemetry(config.telemetry, {
  onDropped: (n, reason) => {
    dropped[reason] = (dropped[reason] ?? 0) + n;
  },
  onError: (err) => console.error(err),
});
if (!telemetry?.feature.beforeRoute) throw new Error('tracing did not start');
const beforeRoute = telemetry.feature.beforeRoute;

// Only what the feature reads of a call: the bench measures the feature, not a whole pipeline.
const codec = { requestType: 'chat.completions', family: 'alpha' } as unknown as FamilyCodec;
const deps = { onHookError: (e: unknown) => console.error(e) } as unknown as PipelineDeps;
const target = { vendor: 'openai', vendorAsSent: 'openai', model: 'gpt-4o-mini' } as RoutedTarget;
const headers = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
const signal = AbortSignal.abort();

function oneCall(traced: boolean): void {
  const call = newCall(
    {
      codec,
      principal: { orgId: 'org', projectId: 'prj', keyId: 'key' } as never,
      requestId: 'req',
      body: { model: 'openai/gpt-4o-mini' },
      headers,
      signal,
    },
    'chat',
  );
  call.chat = {
    ir: { model: 'gpt-4o-mini', params: { maxTokens: 50, temperature: 0.2 }, stream: false, messages: [] },
  } as unknown as ChatCall;
  if (traced) beforeRoute(call);
  const spec = { method: 'POST' as const, url: 'https://api.openai.com/v1/chat/completions', headers: {} };
  call.chat.onSend?.(target, spec);
  const parts = recordParts('chat.completions');
  parts.status = 200;
  parts.target = target;
  parts.usage = { input: 12, output: 34 };
  parts.trace = {
    policy: 'direct',
    config: null,
    attempts: [
      {
        model: 'gpt-4o-mini',
        provider: 'openai',
        status: 200,
        outcome: 'success',
        latency_ms: 1,
        cost_usd: 0,
        served: true,
      },
    ],
  };
  endCall(deps, call, callRecord(call, parts));
}

let exportCpu = 0;
/** CPU of one batch of calls and of everything it set off (the export included), in microseconds. */
async function batch(traced: boolean): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < BATCH; i++) oneCall(traced);
  const inCall = process.cpuUsage(start);
  await telemetry?.flush();
  const used = process.cpuUsage(start);
  if (traced) exportCpu += used.user + used.system - inCall.user - inCall.system;
  return used.user + used.system;
}

// Warm-up on both paths, long enough for the JIT to have compiled the feature's code (some 4,000
// calls: its compile time is paid once, not per call) and the calls' code again for the untraced
// path's objects (they differ in shape): neither belongs in the first measured batches.
for (let i = 0; i < 8; i++) {
  await batch(false);
  await batch(true);
}
exportCpu = 0; // the measured batches' only, as the figures below are per measured call
// Each batch once without the feature (the same call objects and record, no spans) and once with it;
// the difference is the feature's. The machine is shared, so besides the mean over all batches the
// median of the per-batch differences is given: it is what a batch costs when no other process
// took the core away in the middle of it.
const cpu = { off: 0, on: 0 };
const diffs: number[] = [];
let measured = 0;
for (; measured < calls; measured += BATCH) {
  const off = await batch(false);
  const on = await batch(true);
  cpu.off += off;
  cpu.on += on;
  diffs.push((on - off) / BATCH);
}
diffs.sort((a, b) => a - b);
const perCall = (us: number) => (us / measured).toFixed(2);
console.log(
  `${measured} calls: ${perCall(cpu.off)} us CPU without the feature, ${perCall(cpu.on)} us with it (always_on, ` +
    `export included): ${perCall(cpu.on - cpu.off)} us per call for tracing (median batch ` +
    `${diffs[Math.floor(diffs.length / 2)].toFixed(2)} us), of which ${perCall(exportCpu)} us exporting; ` +
    `spans dropped: ${JSON.stringify(dropped)}`,
);
await telemetry.shutdown();
sink.kill();

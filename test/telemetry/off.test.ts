// Tracing off costs nothing: a gateway started without an OTLP endpoint loads no OpenTelemetry SDK
// package, before or after serving a call, and its pipeline has no tracing hook. The same process
// then starts one with an endpoint, which proves the load detector sees the SDK when it is there.
import assert from 'node:assert/strict';
import { createRequire, register } from 'node:module';
import { after, before, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';

const resolved: string[] = [];
const channel = new MessageChannel();
channel.port1.on('message', (url: string) => resolved.push(url));
channel.port1.unref();
register('./record-loads.mjs', import.meta.url, { data: { port: channel.port2 }, transferList: [channel.port2] });

// Loaded only now, so that the hooks above see the gateway's whole module graph.
const { startRecordingFake, startTracedGateway } = await import('./env.ts');
const { default: OpenAI } = await import('openai');

/** Every module loaded so far (ESM through the hooks, CommonJS through require.cache). */
async function loadedModules(): Promise<string[]> {
  // Messages from the hooks arrive in order: once this import's own URL is in, every earlier one is.
  const marker = `data:text/javascript,export default ${Date.now()}${Math.random()}`;
  await import(marker);
  const until = Date.now() + 5000;
  while (!resolved.includes(marker) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  assert.ok(resolved.includes(marker), 'the module hooks reported nothing');
  return [...resolved, ...Object.keys(createRequire(import.meta.url).cache)];
}

/** OpenTelemetry packages among the loaded modules, less @opentelemetry/api, which prom-client requires itself. */
const otelPackages = (modules: string[]): string[] => [
  ...new Set(
    modules
      .map((m) => /node_modules\/(@opentelemetry\/[^/]+)\//.exec(m)?.[1])
      .filter((p): p is string => p !== undefined && p !== '@opentelemetry/api'),
  ),
];

let fake: Awaited<ReturnType<typeof startRecordingFake>>;
before(async () => {
  fake = await startRecordingFake();
});
after(async () => fake?.close());

it('without an OTLP endpoint no OpenTelemetry SDK package is loaded and the pipeline has no tracing hook', async () => {
  const gw = await startTracedGateway({}, fake);
  try {
    const client = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
    const { response } = await client.chat.completions
      .create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    assert.equal(response.headers.get('traceparent'), null);
    // A batch run by the gateway: its create call answers without a traceparent and stores a null link.
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const anthropic = new Anthropic({ apiKey: gw.adminKey, baseURL: `${gw.url}/beta`, maxRetries: 0 });
    const created = await anthropic.messages.batches
      .create({
        requests: [
          {
            custom_id: 'a',
            params: { model: 'openai/gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
          },
        ],
      })
      .withResponse();
    assert.equal(created.response.headers.get('traceparent'), null);
    assert.equal((await gw.app.svc.stores.batches.getById(created.data.id))?.traceLink, null);
    for (
      let i = 0;
      i < 200 && (await anthropic.messages.batches.retrieve(created.data.id)).processing_status !== 'ended';
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
    const ended = await anthropic.messages.batches.retrieve(created.data.id);
    assert.equal(ended.request_counts.succeeded, 1, 'the item ran, with no tracing work');
    assert.equal(gw.app.svc.hooks.traceLinks, undefined);
    assert.equal(gw.app.svc.webhooks.traceLinks, undefined);
    assert.deepEqual(otelPackages(await loadedModules()), []);
    assert.ok(
      (await loadedModules()).some((m) => m.includes('/src/pipeline/chat.ts')),
      'the detector saw the gateway itself load',
    );
    const off = gw.app.svc.hooks.beforeRoute.length;

    const on = await startTracedGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/' }, fake);
    try {
      const loaded = otelPackages(await loadedModules());
      for (const pkg of ['@opentelemetry/sdk-trace-base', '@opentelemetry/otlp-exporter-base'])
        assert.ok(loaded.includes(pkg), `${pkg} loaded once tracing is on: ${loaded.join(', ')}`);
      assert.ok(!loaded.includes('@opentelemetry/otlp-grpc-exporter-base'), 'the grpc transport only for grpc');
      assert.ok(!loaded.includes('@opentelemetry/sdk-metrics'), 'the metrics SDK only with OTEL_METRICS_EXPORTER=otlp');
      assert.equal(on.app.svc.hooks.beforeRoute.length, off + 1, 'tracing is one beforeRoute hook, absent when off');
    } finally {
      await on.close();
    }
  } finally {
    await gw.close();
  }
});

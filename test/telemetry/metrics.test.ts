// The GenAI metrics over OTLP (OTEL_METRICS_EXPORTER=otlp), decoded by the receiver on /v1/metrics
// with the official definitions. Traces are off here (OTEL_TRACES_EXPORTER=none): metrics stand alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { FakeUpstream } from '../../tools/fake-upstream/server.ts';
import { startRecordingFake, startTracedGateway, type TracedGateway } from './env.ts';
import { type OtlpReceiver, type ReceivedPoint, startOtlpReceiver } from './otlp-receiver.ts';

describe('GenAI metrics over OTLP', () => {
  let fake: FakeUpstream;
  let receiver: OtlpReceiver;
  let gw: TracedGateway;
  let openai: OpenAI;

  before(async () => {
    fake = await startRecordingFake();
    receiver = await startOtlpReceiver();
    gw = await startTracedGateway(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_METRIC_EXPORT_INTERVAL: '200',
      },
      fake,
    );
    openai = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await receiver?.close();
    await fake?.close();
  });

  /** The newest cumulative point of a metric for the attributes `match` picks. */
  const latest = (metric: string, match: (a: ReceivedPoint['attributes']) => boolean) =>
    receiver.points.filter((p) => p.metric === metric && match(p.attributes)).at(-1);

  it('token usage, request duration, time to first token and per output token, by model and provider', async () => {
    const plain = await openai.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const stream = await openai.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'tell me more' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed = { prompt_tokens: 0, completion_tokens: 0 };
    for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage;
    const refused = await openai.chat.completions
      .create({ model: '@no-such-config', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => 0,
        (e: InstanceType<typeof OpenAI.APIError>) => e.status ?? 0,
      );
    assert.ok(refused >= 400 && refused < 500);

    const ok = (a: ReceivedPoint['attributes']) =>
      a['gen_ai.request.model'] === 'openai/gpt-4o-mini' && a['error.type'] === undefined;
    const until = Date.now() + 10_000;
    while (
      ((latest('gen_ai.server.request.duration', ok)?.count ?? 0) < 2 ||
        latest('gen_ai.server.request.duration', (a) => a['error.type'] !== undefined) === undefined) &&
      Date.now() < until
    )
      await new Promise((r) => setTimeout(r, 50));

    const duration = latest('gen_ai.server.request.duration', ok);
    assert.equal(duration?.count, 2);
    assert.equal(duration?.unit, 's');
    assert.equal(duration?.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(duration?.attributes['gen_ai.provider.name'], 'openai');
    assert.equal(typeof duration?.attributes['gen_ai.response.model'], 'string');
    const failed = latest('gen_ai.server.request.duration', (a) => a['error.type'] !== undefined);
    assert.equal(failed?.count, 1);
    assert.equal(failed?.attributes['gen_ai.request.model'], '@no-such-config');

    const input = latest('gen_ai.client.token.usage', (a) => ok(a) && a['gen_ai.token.type'] === 'input');
    const output = latest('gen_ai.client.token.usage', (a) => ok(a) && a['gen_ai.token.type'] === 'output');
    assert.equal(input?.unit, '{token}');
    assert.equal(input?.sum, (plain.usage?.prompt_tokens ?? 0) + streamed.prompt_tokens);
    assert.equal(output?.sum, (plain.usage?.completion_tokens ?? 0) + streamed.completion_tokens);
    assert.ok(streamed.completion_tokens > 1);

    assert.equal(latest('gen_ai.server.time_to_first_token', ok)?.count, 2);
    const perToken = latest('gen_ai.server.time_per_output_token', ok);
    assert.ok((perToken?.count ?? 0) >= 1);
    assert.ok((perToken?.sum ?? -1) >= 0);
    assert.equal(receiver.spans.length, 0, 'OTEL_TRACES_EXPORTER=none sends no spans');
  });
});

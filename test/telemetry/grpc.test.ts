// OTEL_EXPORTER_OTLP_PROTOCOL=grpc end to end: the spans the gateway writes itself go through the
// official gRPC exporter's transport, and the GenAI metrics through the official gRPC metric
// exporter, to a real gRPC server implementing the collector's TraceService and MetricsService,
// which decodes them with the official definitions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { FakeUpstream } from '../../tools/fake-upstream/server.ts';
import { callerTraceparent, startRecordingFake, startTracedGateway, type TracedGateway } from './env.ts';
import { type GrpcReceiver, startGrpcReceiver } from './grpc-receiver.ts';

const SERVER = 2;
const CLIENT = 3;

describe('OpenTelemetry over OTLP/gRPC', () => {
  let fake: FakeUpstream;
  let receiver: GrpcReceiver;
  let gw: TracedGateway;

  before(async () => {
    fake = await startRecordingFake();
    receiver = await startGrpcReceiver();
    gw = await startTracedGateway(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_SERVICE_NAME: 'switchyard-grpc',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%3D1',
      },
      fake,
    );
  });
  after(async () => {
    await gw?.close();
    await receiver?.close();
    await fake?.close();
  });

  it("a call's server and client spans reach the collector over gRPC, decoded with the official definitions", async () => {
    const caller = callerTraceparent();
    const openai = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
    const { data, response } = await openai.chat.completions
      .create(
        { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi over grpc' }], max_tokens: 20 },
        { headers: { traceparent: caller.header } },
      )
      .withResponse();
    assert.equal(response.headers.get('traceparent')?.split('-')[1], caller.traceId);
    const spans = await receiver.waitFor((all) => {
      const mine = all.filter((s) => s.traceId === caller.traceId);
      return mine.some((s) => s.kind === SERVER) && mine.some((s) => s.kind === CLIENT);
    });
    const mine = spans.filter((s) => s.traceId === caller.traceId);
    const server = mine.find((s) => s.kind === SERVER);
    const client = mine.find((s) => s.kind === CLIENT);
    assert.ok(server && client);
    assert.equal(server.name, 'chat openai/gpt-4o-mini');
    assert.equal(server.parentSpanId, caller.spanId);
    assert.equal(server.attributes['gen_ai.usage.output_tokens'], data.usage?.completion_tokens);
    assert.equal(server.attributes['gen_ai.request.max_tokens'], 20);
    assert.equal(server.resource['service.name'], 'switchyard-grpc');
    assert.equal(client.parentSpanId, server.spanId);
    assert.equal(client.attributes['gen_ai.provider.name'], 'openai');
    assert.equal(client.attributes['server.address'], '127.0.0.1');
    assert.equal(receiver.metadata[0]['x-collector-key'], 'k=1', 'OTEL_EXPORTER_OTLP_HEADERS go as gRPC metadata');
  });

  it('metrics go over gRPC too, with the same base address and metadata', async () => {
    const metrics = await startGrpcReceiver();
    const mgw = await startTracedGateway(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: metrics.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=m',
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_METRIC_EXPORT_INTERVAL: '200',
      },
      fake,
    );
    try {
      const openai = new OpenAI({ apiKey: mgw.adminKey, baseURL: `${mgw.url}/alpha/v1`, maxRetries: 0 });
      const data = await openai.chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'count me over grpc' }],
      });
      const until = Date.now() + 10_000;
      const output = () =>
        metrics.points.find(
          (p) => p.metric === 'gen_ai.client.token.usage' && p.attributes['gen_ai.token.type'] === 'output',
        );
      while (output() === undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      const point = output();
      assert.ok(point, `no token usage point over gRPC (have ${metrics.points.map((p) => p.metric).join(', ')})`);
      assert.equal(point.sum, data.usage?.completion_tokens);
      assert.equal(point.attributes['gen_ai.request.model'], 'openai/gpt-4o-mini');
      assert.ok(metrics.points.some((p) => p.metric === 'gen_ai.server.request.duration'));
      assert.equal(metrics.spans.length, 0, 'traces are off');
      assert.equal(metrics.metadata[0]['x-collector-key'], 'm');
    } finally {
      await mgw.close();
      await metrics.close();
    }
  });
});

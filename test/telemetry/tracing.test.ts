// Tracing end to end: a gateway started with OTEL_* variables exports its spans over OTLP/HTTP
// protobuf to a receiver that decodes them with the official definitions. Calls go through the
// official SDKs, as an application's would, against the fake upstream, which records the
// `traceparent` each attempt carried.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { FakeUpstream } from '../../tools/fake-upstream/server.ts';
import { callerTraceparent, manage, startRecordingFake, startTracedGateway, type TracedGateway } from './env.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.ts';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

describe('OpenTelemetry traces', () => {
  let fake: FakeUpstream;
  let receiver: OtlpReceiver;
  let gw: TracedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  const ofTrace = (traceId: string) => (spans: ReceivedSpan[]) => spans.filter((s) => s.traceId === traceId);
  /** The server span of a trace and its client spans, once all of them arrived. */
  const callSpans = async (traceId: string, clients: number) => {
    const spans = await receiver.waitFor(
      (all) =>
        ofTrace(traceId)(all).filter((s) => s.kind === CLIENT).length >= clients &&
        ofTrace(traceId)(all).some((s) => s.kind === SERVER),
    );
    const mine = ofTrace(traceId)(spans);
    const server = mine.find((s) => s.kind === SERVER) as ReceivedSpan;
    const attempts = mine.filter((s) => s.kind === CLIENT).sort((a, b) => (a.startNs < b.startNs ? -1 : 1));
    return { server, attempts };
  };
  /** What the fake upstream received for a model, newest last. */
  const upstreamRequests = (modelPart: string) =>
    fake.requests().filter((r) => JSON.stringify(r.body ?? '').includes(modelPart) || r.path.includes(modelPart));
  const traceIdOf = (traceparent: string | null) => {
    assert.match(traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    return (traceparent as string).split('-')[1];
  };

  before(async () => {
    fake = await startRecordingFake();
    receiver = await startOtlpReceiver();
    gw = await startTracedGateway(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'switchyard-under-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test,team=platform',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%3D1',
        SWITCHYARD_OTEL_NO_PROPAGATION: 'google',
        SWITCHYARD_TRACE_URL_TEMPLATE: 'https://jaeger.example/trace/{trace_id}?uiFind=1',
      },
      fake,
    );
    const r = await manage(gw, 'POST', '/manage/v1/routing-configs', {
      name: 'fb',
      slug: 'fb',
      strategy: 'fallback',
      config: {
        attempts: [{ model: 'openai/gpt-4o-mini-fail-429' }, { model: 'anthropic/claude-3-5-haiku-latest' }],
        retry_on: ['429', '5xx'],
      },
    });
    assert.equal(r.status, 201, r.text);
    openai = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: gw.adminKey, baseURL: `${gw.url}/beta`, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await receiver?.close();
    await fake?.close();
  });

  it('a fallback call through the openai SDK: one server span continuing the caller, two client spans, traceparent upstream', async () => {
    const caller = callerTraceparent();
    fake.clearRequests();
    const { data, response } = await openai.chat.completions
      .create(
        {
          model: '@fb',
          messages: [{ role: 'user', content: 'hello there' }],
          max_tokens: 40,
          temperature: 0.3,
          top_p: 0.9,
        },
        { headers: { traceparent: caller.header, 'x-svc-conversation-id': 'conv-42' } },
      )
      .withResponse();
    assert.equal(traceIdOf(response.headers.get('traceparent')), caller.traceId, 'the answer carries the trace');
    const { server, attempts } = await callSpans(caller.traceId, 2);

    assert.equal(server.name, 'chat @fb');
    assert.equal(server.parentSpanId, caller.spanId, "the caller's span is the parent");
    assert.equal(response.headers.get('traceparent')?.split('-')[2], server.spanId);
    const a = server.attributes;
    assert.equal(a['gen_ai.operation.name'], 'chat');
    assert.equal(a['gen_ai.request.model'], '@fb');
    assert.equal(a['gen_ai.provider.name'], 'anthropic');
    assert.equal(a['gen_ai.response.model'], data.model);
    // The vendor's own id (the anthropic attempt answered), so the span matches the vendor's logs; the
    // caller got the answer translated, under an id of the alpha family's shape.
    assert.match(String(a['gen_ai.response.id']), /^msg_/);
    assert.match(data.id, /^chatcmpl-/);
    assert.deepEqual(a['gen_ai.response.finish_reasons'], ['end_turn']);
    assert.equal(a['gen_ai.usage.input_tokens'], data.usage?.prompt_tokens);
    assert.equal(a['gen_ai.usage.output_tokens'], data.usage?.completion_tokens);
    assert.equal(a['gen_ai.request.max_tokens'], 40);
    assert.equal(a['gen_ai.request.temperature'], 0.3);
    assert.equal(a['gen_ai.request.top_p'], 0.9);
    assert.equal(a['gen_ai.conversation.id'], 'conv-42');
    assert.equal(a['http.response.status_code'], 200);
    assert.equal(a['switchyard.request_id'], response.headers.get('x-svc-request-id'));
    assert.equal(a['switchyard.strategy'], 'fallback');
    assert.equal(a['switchyard.config.slug'], 'fb');
    assert.equal(a['switchyard.config.version'], 1);
    assert.equal(typeof a['switchyard.cost_usd'], 'number');
    assert.equal(a['error.type'], undefined);
    assert.equal(a['gen_ai.input.messages'], undefined, 'no content unless opted in');
    assert.equal(a['gen_ai.output.messages'], undefined, 'no content unless opted in');
    assert.equal(server.resource['service.name'], 'switchyard-under-test');
    assert.equal(server.resource.team, 'platform');

    assert.equal(attempts.length, 2);
    const [first, second] = attempts;
    for (const s of attempts) {
      assert.equal(s.parentSpanId, server.spanId);
      assert.equal(s.attributes['server.address'], '127.0.0.1');
      // The SDK anchors each span's clock to Date.now() on its own, so two spans may disagree by a
      // millisecond; containment is checked with that much slack.
      const slack = 2_000_000n;
      assert.ok(s.startNs + slack >= server.startNs && s.endNs <= server.endNs + slack, 'attempts lie inside the call');
    }
    assert.equal(first.name, 'chat gpt-4o-mini-fail-429');
    assert.equal(first.attributes['gen_ai.provider.name'], 'openai');
    assert.equal(first.attributes['http.response.status_code'], 429);
    assert.equal(first.attributes['error.type'], '429');
    assert.equal(first.status, ERROR);
    assert.equal(second.name, 'chat claude-3-5-haiku-latest');
    assert.equal(second.attributes['http.response.status_code'], 200);
    assert.equal(second.attributes['switchyard.attempt.served'], true);

    // Each upstream request carried its own attempt's span as the parent.
    const sentOpenai = upstreamRequests('gpt-4o-mini-fail-429').map((r) => r.headers.traceparent);
    const sentAnthropic = upstreamRequests('claude-3-5-haiku-latest').map((r) => r.headers.traceparent);
    assert.deepEqual(sentOpenai, [`00-${caller.traceId}-${first.spanId}-01`]);
    assert.deepEqual(sentAnthropic, [`00-${caller.traceId}-${second.spanId}-01`]);
    assert.equal(receiver.seen[0].headers['x-collector-key'], 'k=1', 'OTEL_EXPORTER_OTLP_HEADERS reach the collector');

    // The log row keeps the OTel trace id apart from X-Svc-Trace-Id, and the log view links it.
    const log = await manage(gw, 'GET', `/manage/v1/logs/${response.headers.get('x-svc-request-id')}`);
    assert.equal(log.status, 200, log.text);
    const row = JSON.parse(log.text) as { otel_trace_id: string | null; otel_trace_url: string | null };
    assert.equal(row.otel_trace_id, caller.traceId);
    assert.equal(row.otel_trace_url, `https://jaeger.example/trace/${caller.traceId}?uiFind=1`);
    assert.equal(receiver.seen[0].contentType, 'application/x-protobuf');
  });

  it('a stream through the anthropic SDK: the span has the usage and the finish reason', async () => {
    const { data: stream, response } = await anthropic.messages
      .create({
        model: 'anthropic/claude-3-5-haiku-latest',
        max_tokens: 50,
        stream: true,
        messages: [{ role: 'user', content: 'tell me a story' }],
      })
      .withResponse();
    let input = 0;
    let output = 0;
    let stop: string | null = null;
    for await (const ev of stream) {
      if (ev.type === 'message_start') input = ev.message.usage.input_tokens;
      if (ev.type === 'message_delta') {
        output = ev.usage.output_tokens;
        stop = ev.delta.stop_reason;
      }
    }
    const traceId = traceIdOf(response.headers.get('traceparent'));
    const { server, attempts } = await callSpans(traceId, 1);
    assert.equal(server.parentSpanId, '', 'no caller context: the call starts the trace');
    assert.equal(server.name, 'chat anthropic/claude-3-5-haiku-latest');
    assert.equal(server.attributes['gen_ai.request.stream'], true);
    assert.ok(input > 0 && output > 0);
    assert.equal(server.attributes['gen_ai.usage.input_tokens'], input);
    assert.equal(server.attributes['gen_ai.usage.output_tokens'], output);
    assert.deepEqual(server.attributes['gen_ai.response.finish_reasons'], [stop]);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0].attributes['gen_ai.provider.name'], 'anthropic');
  });

  it('a stream through the openai SDK and a beta answer through the anthropic SDK are traced too', async () => {
    const caller = callerTraceparent();
    const stream = await openai.chat.completions.create(
      {
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      },
      { headers: { traceparent: caller.header } },
    );
    let completion = 0;
    for await (const chunk of stream) completion = chunk.usage?.completion_tokens ?? completion;
    const streamed = await callSpans(caller.traceId, 1);
    assert.equal(streamed.server.parentSpanId, caller.spanId);
    assert.equal(streamed.server.attributes['gen_ai.provider.name'], 'openai');
    assert.equal(streamed.server.attributes['gen_ai.usage.output_tokens'], completion);
    assert.ok(completion > 0);

    const { data, response } = await anthropic.messages
      .create({ model: 'openai/gpt-4o-mini', max_tokens: 30, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const { server } = await callSpans(traceIdOf(response.headers.get('traceparent')), 1);
    assert.match(String(server.attributes['gen_ai.response.id']), /^chatcmpl-/);
    assert.match(data.id, /^msg_/);
    assert.equal(server.attributes['gen_ai.usage.output_tokens'], data.usage.output_tokens);
  });

  it('a vendor named in SWITCHYARD_OTEL_NO_PROPAGATION gets no traceparent; its attempt is still traced', async () => {
    fake.clearRequests();
    const { response } = await openai.chat.completions
      .create({ model: 'google/gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const { attempts } = await callSpans(traceIdOf(response.headers.get('traceparent')), 1);
    assert.equal(attempts[0].attributes['gen_ai.provider.name'], 'gcp.gemini');
    const sent = fake.requests().filter((r) => r.path.startsWith('/google'));
    assert.equal(sent.length, 1);
    assert.equal(sent[0].headers.traceparent, undefined);
  });

  it("a key under a rate limit: the answer has both the rate-limit headers and the call's traceparent; a refusal's span says which limit", async () => {
    const k = await manage(gw, 'POST', '/manage/v1/api-keys', { name: 'limited', rate_limits: { rpm: 1 } });
    assert.equal(k.status, 201, k.text);
    const limited = new OpenAI({
      apiKey: (JSON.parse(k.text) as { key: string }).key,
      baseURL: `${gw.url}/alpha/v1`,
      maxRetries: 0,
    });
    const caller = callerTraceparent();
    const { response } = await limited.chat.completions
      .create(
        { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { traceparent: caller.header } },
      )
      .withResponse();
    assert.equal(response.headers.get('x-ratelimit-limit-requests'), '1');
    assert.equal(traceIdOf(response.headers.get('traceparent')), caller.traceId);

    const refused = callerTraceparent();
    const err = await limited.chat.completions
      .create(
        { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'again' }] },
        { headers: { traceparent: refused.header } },
      )
      .then(
        () => assert.fail('expected the second call in the minute to be refused'),
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
    assert.equal(err.status, 429);
    const spans = await receiver.waitFor((all) => all.some((s) => s.traceId === refused.traceId));
    const server = spans.find((s) => s.traceId === refused.traceId) as ReceivedSpan;
    assert.equal(server.attributes['switchyard.limits.refused_by'], 'rpm');
    assert.equal(server.attributes['switchyard.limits.scope'], 'api_key');
    assert.equal(server.attributes['error.type'], 'rate_limit_exceeded');
  });

  it('a refused call has error.type on its span and a traceparent on its answer', async () => {
    const caller = callerTraceparent();
    const err = await openai.chat.completions
      .create(
        { model: '@no-such-config', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { traceparent: caller.header } },
      )
      .then(
        () => assert.fail('expected a refusal'),
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
    assert.ok(err.status !== undefined && err.status >= 400 && err.status < 500, String(err.status));
    assert.equal(traceIdOf(err.headers?.get('traceparent') ?? null), caller.traceId);
    const spans = await receiver.waitFor((all) => all.some((s) => s.traceId === caller.traceId));
    const server = spans.find((s) => s.traceId === caller.traceId) as ReceivedSpan;
    assert.equal(server.attributes['http.response.status_code'], err.status);
    assert.equal(typeof server.attributes['error.type'], 'string');
  });

  it('a collector refusing exports fails no call; the lost spans are counted in /metrics', async () => {
    const dropped = async () => {
      const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.adminKey}` } });
      const m = /^switchyard_otel_spans_dropped_total\{reason="export_failed"\} (\d+)/m.exec(await res.text());
      return m ? Number(m[1]) : 0;
    };
    const before = await dropped();
    receiver.mode = 'fail';
    try {
      for (let i = 0; i < 3; i++) {
        const r = await openai.chat.completions.create({
          model: 'openai/gpt-4o-mini',
          messages: [{ role: 'user', content: `call ${i}` }],
        });
        assert.ok(r.choices[0].message.content);
      }
      const until = Date.now() + 10_000;
      while ((await dropped()) < before + 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      assert.ok((await dropped()) >= before + 3, `dropped ${await dropped()}, was ${before}`);
    } finally {
      receiver.mode = 'ok';
    }
  });
});

// Work done after the call that asked for it is traced in traces of its own, each with a span link
// to that call: a batch's items (one consumer span each), a background response's completion, and
// each webhook delivery attempt (a client span, whose traceparent the receiver gets). Calls go through
// the official SDKs; spans are decoded with the official OTLP definitions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { FakeUpstream } from '../../tools/fake-upstream/server.ts';
import { type Receiver, startReceiver, waitFor } from '../webhooks/receiver.ts';
import { callerTraceparent, manage, startRecordingFake, startTracedGateway, type TracedGateway } from './env.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.ts';

const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

describe('OpenTelemetry: deferred work in its own traces, linked to the call that created it', () => {
  let fake: FakeUpstream;
  let receiver: OtlpReceiver;
  let hooks: Receiver;
  let gw: TracedGateway;

  /** The trace and span ids of a traceparent answer header. */
  const contextOf = (traceparent: string | null) => {
    assert.match(traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, spanId] = (traceparent as string).split('-');
    return { traceId, spanId };
  };
  const linkedTo = (ctx: { traceId: string; spanId: string }) => (s: ReceivedSpan) =>
    s.links.some((l) => l.traceId === ctx.traceId && l.spanId === ctx.spanId);
  /** The webhook delivery that carries `text`, and its attempt's span. */
  const deliveryOf = async (text: string) => {
    const delivery = await waitFor('the webhook delivery', () => hooks.received.find((r) => r.body.includes(text)));
    const sent = contextOf(String(delivery.headers.traceparent));
    const spans = await receiver.waitFor((all) => all.some((s) => s.spanId === sent.spanId));
    return spans.find((s) => s.spanId === sent.spanId) as ReceivedSpan;
  };

  before(async () => {
    fake = await startRecordingFake();
    receiver = await startOtlpReceiver();
    hooks = await startReceiver(() => 200);
    gw = await startTracedGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, fake, { responsePollMs: 50 });
    const ep = await manage(gw, 'POST', '/manage/v1/webhooks/endpoints', {
      url: hooks.url,
      event_types: ['batch.completed', 'response.completed', 'guardrail.blocked'],
    });
    assert.equal(ep.status, 201, ep.text);
  });
  after(async () => {
    await gw?.close();
    await hooks?.close();
    await receiver?.close();
    await fake?.close();
  });

  it("a batch's items are consumer spans of their own traces, linked to the create call; so is its webhook delivery", async () => {
    const caller = callerTraceparent();
    const anthropic = new Anthropic({ apiKey: gw.adminKey, baseURL: `${gw.url}/beta`, maxRetries: 0 });
    const { data: batch, response } = await anthropic.messages.batches
      .create(
        {
          requests: ['one', 'two'].map((t) => ({
            custom_id: t,
            params: { model: 'openai/gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user' as const, content: t }] },
          })),
        },
        { headers: { traceparent: caller.header } },
      )
      .withResponse();
    const created = contextOf(response.headers.get('traceparent'));
    assert.equal(created.traceId, caller.traceId, 'the create call continues the caller');
    const createSpan = (await receiver.waitFor((all) => all.some((s) => s.spanId === created.spanId))).find(
      (s) => s.spanId === created.spanId,
    ) as ReceivedSpan;
    assert.equal(createSpan.kind, SERVER);
    assert.equal(createSpan.parentSpanId, caller.spanId);
    assert.equal(createSpan.attributes['switchyard.batch_id'], batch.id);

    const items = (
      await receiver.waitFor((all) => all.filter((s) => s.kind === CONSUMER && linkedTo(created)(s)).length >= 2)
    ).filter((s) => s.kind === CONSUMER && linkedTo(created)(s));
    assert.equal(items.length, 2);
    for (const item of items) {
      assert.equal(item.parentSpanId, '', 'each item is the root of its own trace');
      assert.notEqual(item.traceId, caller.traceId);
      assert.equal(item.links[0].traceId, caller.traceId, "the link's trace id is the create call's");
      assert.equal(item.name, 'chat openai/gpt-4o-mini');
      assert.equal(item.attributes['switchyard.batch_id'], batch.id);
      assert.ok(Number(item.attributes['gen_ai.usage.output_tokens']) > 0);
      // The item's upstream attempt is a client span in the item's trace.
      const attempts = await receiver.waitFor((all) => all.some((s) => s.parentSpanId === item.spanId));
      assert.equal(attempts.find((s) => s.parentSpanId === item.spanId)?.kind, CLIENT);
    }
    assert.notEqual(items[0].traceId, items[1].traceId);

    const attempt = await deliveryOf(batch.id);
    assert.equal(attempt.kind, CLIENT);
    assert.equal(attempt.name, 'POST');
    assert.equal(attempt.parentSpanId, '');
    assert.notEqual(attempt.traceId, caller.traceId);
    assert.ok(linkedTo(created)(attempt), "the delivery's trace links to the batch's create call");
    assert.equal(attempt.attributes['http.request.method'], 'POST');
    assert.equal(attempt.attributes['server.address'], '127.0.0.1');
    assert.equal(attempt.attributes['server.port'], Number(new URL(hooks.url).port));
    assert.equal(attempt.attributes['http.response.status_code'], 200);
    assert.equal(attempt.attributes['switchyard.webhook.event_type'], 'batch.completed');
    assert.equal(attempt.status, 0);
  });

  it("a background response's completion is a span of its own trace, linked to the create call; so is its webhook delivery", async () => {
    const caller = callerTraceparent();
    const openai = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
    const { data: queued, response } = await openai.responses
      .create(
        { model: 'openai/gpt-4o-mini', input: 'Think for a while', background: true },
        { headers: { traceparent: caller.header } },
      )
      .withResponse();
    const created = contextOf(response.headers.get('traceparent'));
    assert.equal(created.traceId, caller.traceId);
    const done = (await receiver.waitFor((all) => all.some((s) => s.kind === INTERNAL && linkedTo(created)(s)))).find(
      (s) => s.kind === INTERNAL && linkedTo(created)(s),
    ) as ReceivedSpan;
    assert.notEqual(done.traceId, caller.traceId);
    assert.equal(done.parentSpanId, '');
    assert.equal(done.links[0].traceId, caller.traceId, "the link's trace id is the create call's");
    assert.equal(done.name, 'response_background openai/gpt-4o-mini');
    assert.equal(done.attributes['gen_ai.response.id'], queued.id);
    assert.equal(done.attributes['switchyard.response.status'], 'completed');
    assert.equal(done.attributes['switchyard.request_id'], response.headers.get('x-svc-request-id'));
    assert.ok(Number(done.attributes['gen_ai.usage.output_tokens']) > 0);
    assert.ok(done.endNs > done.startNs);

    const attempt = await deliveryOf(queued.id);
    assert.equal(attempt.kind, CLIENT);
    assert.ok(linkedTo(created)(attempt), "the delivery's trace links to the response's create call");
    assert.equal(attempt.attributes['switchyard.webhook.event_type'], 'response.completed');
  });

  it("a background response's create call span is exported when its answer goes out, before the response completes", async () => {
    const caller = callerTraceparent();
    const openai = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
    // `hang`: the fake's response stays in progress until it is cancelled below.
    const model = 'openai/gpt-4o-mini-hang';
    const { data: queued, response } = await openai.responses
      .create({ model, input: 'Think for ever', background: true }, { headers: { traceparent: caller.header } })
      .withResponse();
    const requestId = response.headers.get('x-svc-request-id');
    const created = contextOf(response.headers.get('traceparent'));
    const createSpan = (await receiver.waitFor((all) => all.some((s) => s.spanId === created.spanId))).find(
      (s) => s.spanId === created.spanId,
    ) as ReceivedSpan;
    // Nothing has completed the response yet: it is still running upstream and unlogged.
    assert.equal((await openai.responses.retrieve(queued.id)).status, 'in_progress');
    assert.ok(!receiver.spans.some((s) => s.kind === INTERNAL && linkedTo(created)(s)), 'no completion span yet');
    assert.equal(createSpan.kind, SERVER);
    assert.equal(createSpan.traceId, caller.traceId);
    assert.equal(createSpan.parentSpanId, caller.spanId);
    assert.equal(createSpan.name, `response_create ${model}`);
    assert.equal(createSpan.status, 0);
    assert.equal(createSpan.attributes['http.response.status_code'], 200);
    assert.equal(createSpan.attributes['gen_ai.request.model'], model);
    assert.equal(createSpan.attributes['gen_ai.response.id'], queued.id);
    assert.equal(createSpan.attributes['switchyard.request_id'], requestId);
    assert.equal(createSpan.attributes['switchyard.org_id'], gw.app.svc.bootstrap.orgId);
    assert.equal(createSpan.attributes['gen_ai.usage.output_tokens'], undefined, 'usage belongs to the completion');
    assert.equal(createSpan.attributes['switchyard.cost_usd'], undefined);

    assert.equal((await openai.responses.cancel(queued.id)).status, 'cancelled');
    const done = (await receiver.waitFor((all) => all.some((s) => s.kind === INTERNAL && linkedTo(created)(s)))).find(
      (s) => s.kind === INTERNAL && linkedTo(created)(s),
    ) as ReceivedSpan;
    assert.equal(done.attributes['switchyard.response.status'], 'cancelled');
    assert.equal(done.status, 2, 'a cancelled response is a failed completion');
    assert.ok(createSpan.endNs < done.endNs, 'the create call ended before its response did');
    // The completion's webhook goes out after the held call ended: by then its span would have been sent again.
    await deliveryOf(queued.id);
    assert.equal(receiver.spans.filter((s) => s.spanId === created.spanId).length, 1, 'the create span is sent once');
    // The log row, written at completion, still names the create call's trace.
    const row = await waitFor('the create call log row', async () => {
      const r = await manage(gw, 'GET', `/manage/v1/logs/${requestId}`);
      return r.status === 200 ? (JSON.parse(r.text) as { otel_trace_id: string | null }) : undefined;
    });
    assert.equal(row.otel_trace_id, caller.traceId);
  });

  it("a guardrail block's webhook delivery links to the refused call", async () => {
    const created = await manage(gw, 'POST', '/manage/v1/guardrails', {
      name: 'no zeus',
      scope: { type: 'org' },
      checks: [{ type: 'regex', stage: 'input', action: 'block', patterns: ['\\bproject\\s+zeus\\b'], flags: 'i' }],
    });
    assert.equal(created.status, 201, created.text);
    const orgId = gw.app.svc.bootstrap.orgId;
    const until = Date.now() + 10_000;
    while (gw.app.svc.guardrails.policies.forOrg(orgId).length === 0 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    try {
      const caller = callerTraceparent();
      const openai = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
      const err = await openai.chat.completions
        .create(
          { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'tell me about Project Zeus' }] },
          { headers: { traceparent: caller.header } },
        )
        .then(
          () => assert.fail('expected the guardrail to block'),
          (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
        );
      assert.equal(err.status, 400);
      const refused = contextOf(err.headers?.get('traceparent') ?? null);
      assert.equal(refused.traceId, caller.traceId);
      const attempt = await deliveryOf(String(err.headers?.get('x-svc-request-id')));
      assert.ok(linkedTo(refused)(attempt), "the delivery's trace links to the refused call");
      assert.equal(attempt.attributes['switchyard.webhook.event_type'], 'guardrail.blocked');
    } finally {
      await manage(gw, 'DELETE', `/manage/v1/guardrails/${(JSON.parse(created.text) as { id: string }).id}`);
    }
  });

  it('an event from no traced call (a test delivery) still gets its span, with no link', async () => {
    const list = await manage(gw, 'GET', '/manage/v1/webhooks/endpoints');
    const id = (JSON.parse(list.text) as { data: Array<{ id: string }> }).data[0].id;
    const r = await manage(gw, 'POST', `/manage/v1/webhooks/endpoints/${id}/test`, {});
    assert.equal(r.status < 300, true, r.text);
    const attempt = await deliveryOf(id);
    assert.equal(attempt.kind, CLIENT);
    assert.deepEqual(attempt.links, []);
  });
});

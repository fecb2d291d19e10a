// Message content on spans, opted in with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: the
// GenAI conventions' gen_ai.system_instructions / gen_ai.input.messages / gen_ai.output.messages as
// JSON, cut to CONTENT_CAP, and masked where an org guardrail masks. (Without the variable there is
// no content on the span: tracing.test.ts checks that.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { CONTENT_CAP } from '../../src/telemetry/content.ts';
import type { FakeUpstream } from '../../tools/fake-upstream/server.ts';
import { callerTraceparent, manage, startRecordingFake, startTracedGateway, type TracedGateway } from './env.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.ts';

const SERVER = 2;

interface Part {
  type: string;
  content?: string;
}
interface Message {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

describe('message content on spans (opt-in)', () => {
  let fake: FakeUpstream;
  let receiver: OtlpReceiver;
  let gw: TracedGateway;
  let openai: OpenAI;

  /** The server span of a call made with a caller traceparent of its own. */
  const serverSpan = async (traceId: string): Promise<ReceivedSpan> => {
    const spans = await receiver.waitFor((all) => all.some((s) => s.traceId === traceId && s.kind === SERVER));
    return spans.find((s) => s.traceId === traceId && s.kind === SERVER) as ReceivedSpan;
  };
  const json = <T>(v: unknown): T => {
    assert.equal(typeof v, 'string');
    return JSON.parse(v as string) as T;
  };

  before(async () => {
    fake = await startRecordingFake();
    receiver = await startOtlpReceiver();
    gw = await startTracedGateway(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
      fake,
    );
    openai = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await receiver?.close();
    await fake?.close();
  });

  it('system instructions, input and output messages in the conventions shape', async () => {
    const caller = callerTraceparent();
    const data = await openai.chat.completions.create(
      {
        model: 'openai/gpt-4o-mini',
        messages: [
          { role: 'system', content: 'You answer briefly.' },
          { role: 'user', content: 'What is a gateway?' },
          { role: 'assistant', content: 'A door.' },
          { role: 'user', content: 'Say more.' },
        ],
      },
      { headers: { traceparent: caller.header } },
    );
    const a = (await serverSpan(caller.traceId)).attributes;
    assert.deepEqual(json(a['gen_ai.system_instructions']), [{ type: 'text', content: 'You answer briefly.' }]);
    assert.deepEqual(json(a['gen_ai.input.messages']), [
      { role: 'user', parts: [{ type: 'text', content: 'What is a gateway?' }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'A door.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Say more.' }] },
    ]);
    const out = json<Message[]>(a['gen_ai.output.messages']);
    assert.equal(out.length, 1);
    assert.equal(out[0].role, 'assistant');
    assert.equal(out[0].parts[0].type, 'text');
    assert.equal(out[0].parts[0].content, data.choices[0].message.content);
    assert.deepEqual(a['gen_ai.response.finish_reasons'], [out[0].finish_reason]);
  });

  it(`a long conversation is cut to ${CONTENT_CAP} characters of JSON, newest messages kept`, async () => {
    const caller = callerTraceparent();
    const long = 'x'.repeat(6000);
    const messages = Array.from({ length: 12 }, (_, i) => ({ role: 'user' as const, content: `${i} ${long}` }));
    await openai.chat.completions.create(
      { model: 'openai/gpt-4o-mini', messages },
      { headers: { traceparent: caller.header } },
    );
    const raw = (await serverSpan(caller.traceId)).attributes['gen_ai.input.messages'];
    assert.ok(String(raw).length <= CONTENT_CAP, `${String(raw).length} characters`);
    const kept = json<Message[]>(raw);
    assert.ok(kept.length > 0 && kept.length < messages.length);
    const last = kept[kept.length - 1].parts[0].content ?? '';
    assert.ok(last.startsWith('11 '), 'the newest message is kept');
    assert.match(last, /…\[truncated: 6003 characters\]$/, 'each part is cut, saying how long it was');
  });

  it('text an org guardrail masks is captured masked', async () => {
    const created = await manage(gw, 'POST', '/manage/v1/guardrails', {
      name: 'mask emails',
      scope: { type: 'org' },
      checks: [{ type: 'pii', stage: 'input', action: 'mask', entities: ['email'] }],
    });
    assert.equal(created.status, 201, created.text);
    const orgId = gw.app.svc.bootstrap.orgId;
    const until = Date.now() + 10_000;
    while (gw.app.svc.guardrails.policies.forOrg(orgId).length === 0 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    try {
      const caller = callerTraceparent();
      await openai.chat.completions.create(
        { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'write to ada@example.com today' }] },
        { headers: { traceparent: caller.header } },
      );
      const sent = JSON.stringify(fake.requests().at(-1)?.body);
      assert.ok(!sent.includes('ada@example.com'), `the upstream got it masked: ${sent}`);
      const input = String((await serverSpan(caller.traceId)).attributes['gen_ai.input.messages']);
      assert.ok(!input.includes('ada@example.com'), input);
      assert.ok(input.includes('write to ') && input.includes(' today'), input);
    } finally {
      await manage(gw, 'DELETE', `/manage/v1/guardrails/${(JSON.parse(created.text) as { id: string }).id}`);
    }
  });
});

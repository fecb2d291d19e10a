// A collector that is down, then one that answers only after 5 s: calls through the gateway still
// succeed and come back long before the collector would have answered, and the spans lost on the way
// are counted in /metrics. OTEL_EXPORTER_OTLP_TIMEOUT is 1 s, so a slow export counts as failed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { FakeUpstream } from '../../tools/fake-upstream/server.ts';
import { startRecordingFake, startTracedGateway, type TracedGateway } from './env.ts';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.ts';

const SLOW_MS = 5000;

describe('a failing collector', () => {
  let fake: FakeUpstream;
  let receiver: OtlpReceiver;
  let gw: TracedGateway;
  let openai: OpenAI;

  const dropped = async (): Promise<number> => {
    const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.adminKey}` } });
    const m = /^switchyard_otel_spans_dropped_total\{reason="export_failed"\} (\d+)/m.exec(await res.text());
    return m ? Number(m[1]) : 0;
  };
  /** Waits (bounded) for the counter to reach `n`: exports fail in the background, after the calls. */
  const droppedReaches = async (n: number): Promise<number> => {
    const until = Date.now() + 15_000;
    let now = await dropped();
    while (now < n && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      now = await dropped();
    }
    return now;
  };
  /** Three calls; each must come back well before the slow collector would have answered one export. */
  const threeCalls = async () => {
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const r = await openai.chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: `call ${i}` }],
      });
      assert.ok(r.choices[0].message.content, 'the call succeeded');
      assert.ok(Date.now() - started < SLOW_MS / 2, 'the call did not wait on the collector');
    }
  };

  before(async () => {
    fake = await startRecordingFake();
    receiver = await startOtlpReceiver();
    gw = await startTracedGateway(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_TRACES_SAMPLER: 'always_on',
        OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
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

  it('down: calls succeed, their spans are counted as dropped', async () => {
    await receiver.stop();
    const before = await dropped();
    await threeCalls();
    // Each call is a server span and an attempt span.
    assert.ok((await droppedReaches(before + 6)) >= before + 6, `dropped ${await dropped()}, was ${before}`);
    assert.equal(receiver.requests, 0, 'nothing reached the stopped collector');
  });

  it('slow (5 s): calls succeed without waiting on it, the timed-out exports are counted', async () => {
    await receiver.restart();
    receiver.mode = { delayMs: SLOW_MS };
    const before = await dropped();
    await threeCalls();
    assert.ok((await droppedReaches(before + 6)) >= before + 6, `dropped ${await dropped()}, was ${before}`);
    assert.ok(receiver.requests > 0, 'the exports reached the slow collector');
    receiver.mode = 'ok';
  });
});

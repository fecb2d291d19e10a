// The dashboard's log page in a real browser links a traced call to its trace in the operator's
// tracing backend (SWITCHYARD_TRACE_URL_TEMPLATE), and shows the OTel trace id without a link when
// no template is set. Screenshots go to test-results/ui/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { Browser } from 'playwright-core';
import type { FakeUpstream } from '../../tools/fake-upstream/server.ts';
import { browserSkipReason, launch, screenshot, settled, signedInContext } from '../ui/helpers/browser.ts';
import { buildUi } from '../ui/helpers/build.ts';
import { callerTraceparent, startRecordingFake, startTracedGateway, type TracedGateway } from './env.ts';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.ts';

const skip = browserSkipReason();

describe('the log page links a call to its trace', { skip }, () => {
  let fake: FakeUpstream;
  let receiver: OtlpReceiver;
  let browser: Browser;
  const gateways: TracedGateway[] = [];

  before(async () => {
    buildUi();
    fake = await startRecordingFake();
    receiver = await startOtlpReceiver();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    for (const gw of gateways) await gw.close();
    await receiver?.close();
    await fake?.close();
  });

  /** A traced call through a gateway started with `env`, and its log page's OpenTelemetry row. */
  const tracedCallPage = async (env: NodeJS.ProcessEnv, shot: string) => {
    const gw = await startTracedGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env }, fake);
    gateways.push(gw);
    const caller = callerTraceparent();
    const openai = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
    const { response } = await openai.chat.completions
      .create(
        { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { traceparent: caller.header } },
      )
      .withResponse();
    const context = await signedInContext(browser, gw.adminKey, 'org');
    const page = await context.newPage();
    await page.goto(`${gw.url}/ui/logs/${response.headers.get('x-svc-request-id')}`);
    await settled(page);
    await screenshot(page, shot);
    const summary = (await page.locator('[data-testid="log-summary"]').textContent()) ?? '';
    const link = page.locator('[data-testid="otel-trace-link"]');
    const href = (await link.count()) > 0 ? await link.getAttribute('href') : null;
    await context.close();
    return { traceId: caller.traceId, summary, href };
  };

  test('with SWITCHYARD_TRACE_URL_TEMPLATE: a link to the trace', async () => {
    const { traceId, summary, href } = await tracedCallPage(
      { SWITCHYARD_TRACE_URL_TEMPLATE: 'https://jaeger.example/trace/{trace_id}' },
      'desktop-log-otel-link',
    );
    assert.equal(href, `https://jaeger.example/trace/${traceId}`);
    assert.match(summary, new RegExp(`OpenTelemetry trace${traceId}`));
  });

  test('without it: the trace id, no link', async () => {
    const { traceId, summary, href } = await tracedCallPage({}, 'desktop-log-otel-id');
    assert.equal(href, null);
    assert.match(summary, new RegExp(`OpenTelemetry trace${traceId}`));
  });
});

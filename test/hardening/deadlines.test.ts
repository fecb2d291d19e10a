// Upstream deadlines: a hanging upstream ends in 504 in the family's shape (or an error record on a
// stream that already started), and the call is logged.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv({ config: { upstreamTimeoutMs: 400, streamIdleTimeoutMs: 400 } });
});
after(async () => {
  await env?.close();
});

async function post(path: string, body: unknown) {
  const started = Date.now();
  const res = await fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, text: await res.text(), ms: Date.now() - started };
}

const hi = [{ role: 'user', content: 'hi' }];

describe('upstream deadlines', () => {
  test('alpha: a hanging upstream is a 504 upstream_timeout', async () => {
    const r = await post('/alpha/v1/chat/completions', { model: 'openai/gpt-4o-mini-hang', messages: hi });
    assert.equal(r.status, 504, r.text);
    assert.equal(JSON.parse(r.text).error.code, 'upstream_timeout');
    assert.ok(r.ms < 5000, `took ${r.ms} ms`);
  });

  test('beta: a hanging upstream is a 504 api_error, streamed or not', async () => {
    for (const stream of [false, true]) {
      const r = await post('/beta/v1/messages', {
        model: 'anthropic/claude-3-5-haiku-latest-hang',
        max_tokens: 10,
        messages: hi,
        stream,
      });
      assert.equal(r.status, 504, r.text);
      assert.equal(JSON.parse(r.text).error.type, 'api_error');
    }
  });

  test('a stream that stalls after it started ends with an error record', async () => {
    const r = await post('/alpha/v1/chat/completions', {
      model: 'openai/gpt-4o-mini-midstream-stall',
      messages: hi,
      stream: true,
    });
    assert.equal(r.status, 200);
    const last = r.text.trim().split('\n\n').pop() ?? '';
    const record = JSON.parse(last.replace(/^data: /, ''));
    assert.equal(record.error.code, 'upstream_timeout', r.text);
    assert.ok(r.ms < 5000, `took ${r.ms} ms`);
  });

  test('timeouts are logged with their status', async () => {
    await env.gw.app.svc.logs.flush();
    const rows = await env.gw.app.svc.stores.logs.list({ orgId: env.gw.app.svc.bootstrap.orgId }, { limit: 50 });
    const statuses = rows.map((r) => r.statusCode);
    assert.ok(statuses.includes(504), JSON.stringify(statuses));
  });
});

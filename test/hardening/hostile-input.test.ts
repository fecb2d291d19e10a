// Hostile input never produces a 500, a hang or an oversized echo: each gets a 400 in the called
// family's shape, naming the field.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env?.close();
});

async function post(path: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

const chat = (model: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('hostile input', () => {
  for (const [family, path] of [
    ['alpha', '/alpha/v1/chat/completions'],
    ['beta', '/beta/v1/messages'],
  ] as const) {
    for (const stream of [false, true]) {
      test(`${family}${stream ? ' stream' : ''}: a non-Latin-1 model is a 400 naming model`, async () => {
        const r = await post(path, chat('openai/gpt-4o-mini\u202e', { stream }));
        assert.equal(r.status, 400, r.text);
        const body = JSON.parse(r.text);
        if (family === 'alpha') {
          assert.equal(body.error.param, 'model');
          assert.equal(body.error.code, 'invalid_model');
        } else assert.equal(body.error.type, 'invalid_request_error');
      });
    }
  }

  test('embeddings: a control character in model is a 400', async () => {
    const r = await post('/alpha/v1/embeddings', JSON.stringify({ model: 'openai/te\u0007xt', input: 'hi' }));
    assert.equal(r.status, 400, r.text);
  });

  test('JSON nested 5,000 levels deep is a 400, not a 500', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    for (const extra of [
      `"tools":[{"type":"function","function":{"name":"f","parameters":${deep}}}]`,
      `"response_format":${deep}`,
      `"extra_body":${deep}`,
    ]) {
      const body = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}],${extra}}`;
      const r = await post('/alpha/v1/chat/completions', body);
      assert.equal(r.status, 400, r.text.slice(0, 300));
      assert.equal(JSON.parse(r.text).error.code, 'json_too_deep');
    }
    const beta = await post('/beta/v1/messages', `{"model":"x","max_tokens":1,"metadata":${deep}}`);
    assert.equal(beta.status, 400);
    assert.equal(JSON.parse(beta.text).type, 'error');
  });

  test('a 10 MB model string is not echoed whole', async () => {
    const r = await post('/alpha/v1/chat/completions', chat('x'.repeat(10 * 1024 * 1024)));
    assert.equal(r.status, 400);
    assert.ok(r.text.length < 2000, `error body is ${r.text.length} bytes`);
    const unknown = await post('/alpha/v1/chat/completions', chat(`nosuchvendor-${'y'.repeat(200)}`));
    assert.equal(unknown.status, 400);
    assert.ok(unknown.text.length < 2000, `error body is ${unknown.text.length} bytes`);
  });

  test('the SQLite files are readable by their owner only', async () => {
    await post('/alpha/v1/chat/completions', chat('openai/gpt-4o-mini'));
    for (const f of ['switchyard.db', 'switchyard.db-wal', 'switchyard.db-shm']) {
      const mode = statSync(join(env.gw.dataDir, f)).mode & 0o777;
      assert.equal(mode.toString(8), '600', f);
    }
  });
});

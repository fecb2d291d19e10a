// End-to-end checks of the single request pipeline: one routing flow for chat and embeddings, and
// one mid-stream error record per family whatever the path (pass-through or translated).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env?.close();
});

async function post(path: string, body: unknown, key = env.gw.adminKey): Promise<{ status: number; text: string }> {
  const res = await fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** The last SSE record of a stream, as [event name or null, parsed data]. */
function lastRecord(text: string): [string | null, unknown] {
  const records = text.split('\n\n').filter((r) => r.trim() !== '');
  const last = records[records.length - 1];
  const event = /^event: (.*)$/m.exec(last)?.[1] ?? null;
  const data = /^data: (.*)$/m.exec(last)?.[1] ?? '';
  return [event, JSON.parse(data)];
}

describe('mid-stream failure', () => {
  const cases = [
    {
      family: 'alpha',
      path: '/alpha/v1/chat/completions',
      native: 'openai/gpt-4o-mini',
      other: 'anthropic/claude-3-5-haiku-latest',
    },
    {
      family: 'beta',
      path: '/beta/v1/messages',
      native: 'anthropic/claude-3-5-haiku-latest',
      other: 'openai/gpt-4o-mini',
    },
  ];
  for (const c of cases) {
    test(`${c.family}: the same error record for a pass-through and a translated stream`, async () => {
      const body = (model: string) => ({
        model: `${model}-midstream-cut`,
        stream: true,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'tell me a long story about rivers and bridges' }],
      });
      const passthrough = await post(c.path, body(c.native));
      const translated = await post(c.path, body(c.other));
      assert.equal(passthrough.status, 200);
      assert.equal(translated.status, 200);
      const [pEvent, pData] = lastRecord(passthrough.text);
      const [tEvent, tData] = lastRecord(translated.text);
      assert.equal(pEvent, tEvent);
      assert.deepEqual(pData, tData, `pass-through:\n${passthrough.text}\ntranslated:\n${translated.text}`);
      const err = (pData as { error: { type: string; message: string } }).error;
      assert.equal(err.type, 'api_error');
      assert.match(err.message, /upstream stream broke/);
    });
  }
});

describe('routing configs are project-scoped on every endpoint', () => {
  test('a project-scoped key gets 404 for another project’s @slug on chat and embeddings alike', async () => {
    const p1 = await api(env.gw, 'POST', '/manage/v1/projects', { name: 'pipeline one' });
    const p2 = await api(env.gw, 'POST', '/manage/v1/projects', { name: 'pipeline two' });
    const id1 = (p1.json as { id: string }).id;
    const id2 = (p2.json as { id: string }).id;
    const cfg = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
      project_id: id1,
      name: 'emb one',
      slug: 'emb-one',
      strategy: 'single',
      config: { model: 'openai/text-embedding-3-small' },
    });
    assert.equal(cfg.status, 201, JSON.stringify(cfg.json));
    const k2 = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: 'two', project_id: id2 });
    const key2 = (k2.json as { key: string }).key;
    const k1 = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: 'one', project_id: id1 });
    const key1 = (k1.json as { key: string }).key;
    const emb = await post('/alpha/v1/embeddings', { model: '@emb-one', input: 'hi' }, key2);
    assert.equal(emb.status, 404, emb.text);
    assert.equal(JSON.parse(emb.text).error.code, 'routing_config_not_found');
    const chat = await post(
      '/alpha/v1/chat/completions',
      { model: '@emb-one', messages: [{ role: 'user', content: 'hi' }] },
      key2,
    );
    assert.equal(chat.status, 404, chat.text);
    // The owner project's key is served.
    const own = await post('/alpha/v1/embeddings', { model: '@emb-one', input: 'hi' }, key1);
    assert.equal(own.status, 200, own.text);
    // An embeddings-only config on chat is the caller's mistake: 400 saying why, not an upstream error.
    const wrongKind = await post(
      '/alpha/v1/chat/completions',
      { model: '@emb-one', messages: [{ role: 'user', content: 'hi' }] },
      key1,
    );
    assert.equal(wrongKind.status, 400, wrongKind.text);
    assert.equal(JSON.parse(wrongKind.text).error.code, 'routing_config_kind_mismatch');
  });
});

describe('config misuse', () => {
  test('a soft-deleted project’s configs stop serving (404)', async () => {
    const p = await api(env.gw, 'POST', '/manage/v1/projects', { name: 'soon gone' });
    const id = (p.json as { id: string }).id;
    const cfg = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
      project_id: id,
      name: 'gone',
      slug: 'gone-with-project',
      strategy: 'single',
      config: { model: 'openai/gpt-4o-mini' },
    });
    assert.equal(cfg.status, 201, JSON.stringify(cfg.json));
    const body = { model: '@gone-with-project', messages: [{ role: 'user', content: 'hi' }] };
    assert.equal((await post('/alpha/v1/chat/completions', body)).status, 200);
    assert.equal((await api(env.gw, 'DELETE', `/manage/v1/projects/${id}`)).status, 200);
    const after = await post('/alpha/v1/chat/completions', body);
    assert.equal(after.status, 404, after.text);
  });

  test('more than 16 candidates in one config is a 400 naming config', async () => {
    const attempts = Array.from({ length: 17 }, () => ({ model: 'openai/gpt-4o-mini' }));
    const r = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
      name: 'too many',
      slug: 'too-many',
      strategy: 'fallback',
      config: { attempts },
    });
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.equal((r.json as { error: { param: string } }).error.param, 'config');
  });
});

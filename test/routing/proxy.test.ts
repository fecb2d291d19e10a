// `@slug` calls end to end against the fake upstream: fallback on both families with headers and trace,
// attempt timeouts, cascade, ensemble, cooldown, version headers, decisions summary.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call } from '../helpers/gateway.ts';
import { api, type RoutingEnv, startRoutingEnv } from './env.ts';

type Json = Record<string, unknown>;

describe('routing through the proxy', () => {
  let env: RoutingEnv;
  const configs: Record<string, string> = {};
  const create = async (slug: string, strategy: string, config: Json, extra: Json = {}) => {
    const r = await api(env, 'POST', '/manage/v1/routing-configs', { name: slug, slug, strategy, config, ...extra });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    configs[slug] = (r.json as Json).id as string;
  };
  const alpha = (model: string, extra: Json = {}, headers: Record<string, string> = {}) =>
    call(
      env.gw,
      'POST',
      '/alpha/v1/chat/completions',
      { model, messages: [{ role: 'user', content: 'hello there' }], max_tokens: 50, ...extra },
      headers,
    );
  const beta = (model: string, extra: Json = {}, headers: Record<string, string> = {}) =>
    call(
      env.gw,
      'POST',
      '/beta/v1/messages',
      { model, messages: [{ role: 'user', content: 'hello there' }], max_tokens: 50, ...extra },
      headers,
    );

  before(async () => {
    env = await startRoutingEnv();
    await create('fb', 'fallback', {
      attempts: [
        { model: 'openai/gpt-4o-mini-fail-429', timeout_ms: 5000 },
        { model: 'anthropic/claude-3-5-haiku-latest' },
      ],
      retry_on: ['429', '5xx', 'timeout'],
    });
  });
  after(async () => env?.close());

  it('falls back from a fail-429 model on both families, with headers and trace', async () => {
    for (const send of [alpha, beta]) {
      const r = await send('@fb', { 'svc:trace': true });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.get('x-svc-config'), 'fb');
      assert.equal(r.headers.get('x-svc-config-version'), '1');
      assert.equal(r.headers.get('x-svc-model-used'), 'claude-3-5-haiku-latest');
      assert.equal(r.headers.get('x-svc-provider-used'), 'anthropic');
      const trace = (r.body as Json)['svc:trace'] as Json;
      assert.deepEqual(
        (trace.attempts as Json[]).map((a) => [a.model, a.status, a.outcome]),
        [
          ['gpt-4o-mini-fail-429', 429, 'error'],
          ['claude-3-5-haiku-latest', 200, 'success'],
        ],
      );
      assert.deepEqual(trace.config, { slug: 'fb', version: 1 });
    }
    const plain = await alpha('@fb');
    assert.equal((plain.body as Json)['svc:trace'], undefined);
    // A stream falls back too: the upstream's error status arrives before any byte is sent.
    const streamed = await beta('@fb', { stream: true });
    assert.equal(streamed.status, 200);
    assert.equal(streamed.headers.get('x-svc-model-used'), 'claude-3-5-haiku-latest');
    assert.match(streamed.text, /event: message_stop/);
  });

  it('cuts a hanging model at timeout_ms', async () => {
    await create('hang', 'fallback', {
      attempts: [{ model: 'openai/gpt-4o-mini-hang', timeout_ms: 300 }, { model: 'openai/gpt-4o-mini' }],
      retry_on: ['timeout'],
    });
    const t0 = Date.now();
    const r = await alpha('@hang', { 'svc:trace': true });
    assert.equal(r.status, 200, r.text);
    assert.ok(Date.now() - t0 < 3000);
    const attempts = ((r.body as Json)['svc:trace'] as Json).attempts as Json[];
    assert.equal(attempts[0].status, 504);
    assert.equal(r.headers.get('x-svc-model-used'), 'gpt-4o-mini');
  });

  it('returns a non-retryable error at once', async () => {
    await create('strict', 'fallback', {
      models: ['openai/gpt-4o-mini-fail-400', 'openai/gpt-4o-mini'],
      retry_on: ['429'],
    });
    const r = await alpha('@strict');
    assert.equal(r.status, 400);
  });

  it('cascade escalates on badjson; ensemble answers with the fastest', async () => {
    await create('casc', 'cascade', { steps: ['openai/gpt-4o-mini-badjson', 'openai/gpt-4o-mini-json'] });
    const r = await alpha('@casc', {
      'svc:trace': true,
      messages: [{ role: 'user', content: 'answer in json' }],
      response_format: { type: 'json_object' },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('x-svc-model-used'), 'gpt-4o-mini-json');
    const attempts = ((r.body as Json)['svc:trace'] as Json).attempts as Json[];
    assert.deepEqual([attempts[0].outcome, attempts[0].reason], ['rejected', 'invalid_json']);

    await create('ens', 'ensemble', { models: ['openai/gpt-4o-mini-slow-400', 'openai/gpt-4o'], select: 'fastest' });
    const e = await alpha('@ens', { 'svc:trace': true });
    assert.equal(e.status, 200, e.text);
    assert.equal(e.headers.get('x-svc-model-used'), 'gpt-4o');
    const ea = ((e.body as Json)['svc:trace'] as Json).attempts as Json[];
    assert.deepEqual(
      ea.map((a) => a.outcome),
      ['cancelled', 'success'],
    );
  });

  it('cools a repeatedly failing candidate down', async () => {
    await create('cool', 'fallback', { models: ['openai/gpt-4o-mini-fail-500', 'openai/gpt-4o-mini'] });
    for (let i = 0; i < 3; i++) assert.equal((await alpha('@cool')).status, 200);
    const r = await alpha('@cool', { 'svc:trace': true });
    const trace = (r.body as Json)['svc:trace'] as Json;
    assert.deepEqual((trace.candidates as Json[])[0], {
      model: 'gpt-4o-mini-fail-500',
      provider: 'openai',
      eligible: false,
      reason: 'cooldown',
    });
    assert.equal((trace.attempts as Json[]).length, 1);
  });

  it('x-svc-config-version follows the version life cycle', async () => {
    await create('ver', 'single', { model: 'openai/gpt-4o-mini' });
    const id = configs.ver;
    const ok = (r: { status: number; json: unknown }) => assert.equal(r.status, 200, JSON.stringify(r.json));
    ok(await api(env, 'PATCH', `/manage/v1/routing-configs/${id}`, { config: { model: 'openai/gpt-4o' } }));
    assert.equal((await alpha('@ver')).headers.get('x-svc-config-version'), '2');
    ok(
      await api(env, 'PATCH', `/manage/v1/routing-configs/${id}`, {
        config: { model: 'anthropic/claude-3-5-haiku-latest' },
      }),
    );
    const v3 = await alpha('@ver');
    assert.deepEqual(
      [v3.headers.get('x-svc-config-version'), v3.headers.get('x-svc-model-used')],
      ['3', 'claude-3-5-haiku-latest'],
    );
    const restored = await api(env, 'POST', `/manage/v1/routing-configs/${id}/versions/1/restore`);
    assert.ok(restored.status === 200 || restored.status === 201, JSON.stringify(restored.json));
    const v4 = await beta('@ver');
    assert.deepEqual(
      [v4.headers.get('x-svc-config-version'), v4.headers.get('x-svc-model-used')],
      ['4', 'gpt-4o-mini'],
    );
    await api(env, 'DELETE', `/manage/v1/routing-configs/${id}`);
    assert.equal((await alpha('@ver')).status, 404);
  });

  it('refuses BYOK on configs and unknown slugs', async () => {
    assert.equal((await alpha('@fb', {}, { 'x-svc-provider-key': 'sk-mine' })).status, 400);
    assert.equal((await beta('@nope')).status, 404);
  });

  it('summarizes decisions per config from the log rows', async () => {
    const r = await api(env, 'GET', '/manage/v1/analytics/decisions');
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const fb = (r.json as { data: Json[] }).data.find((d) => d.slug === 'fb');
    assert.ok(fb, JSON.stringify(r.json));
    // Three calls fell back from the 429 model, which then cooled down: the fourth skipped it.
    assert.equal(fb.requests, 4);
    assert.equal(fb.fallbacks, 3);
    assert.deepEqual(fb.reasons, { 'error:429': 3, 'skipped:cooldown': 1 });
    // The full trace is in the log row.
    const logs = await api(env, 'GET', '/manage/v1/logs?limit=1');
    if (logs.status === 200) assert.ok(JSON.stringify(logs.json).length > 0);
  });
});

// Deleting the last credential of a vendor that a live routing config needs is refused (409),
// unless forced; with another credential of the vendor left it goes through.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env?.close();
});

test('the last credential a config needs cannot be deleted without force', async () => {
  const cfg = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
    name: 'needs fireworks',
    slug: 'needs-fireworks',
    strategy: 'single',
    config: { model: 'fireworks/accounts/fireworks/models/llama-v3p1-70b-instruct' },
  });
  assert.equal(cfg.status, 201, JSON.stringify(cfg.json));
  const id = env.providers.fireworks;
  const refused = await api(env.gw, 'DELETE', `/manage/v1/providers/${id}`);
  assert.equal(refused.status, 409, JSON.stringify(refused.json));
  const err = (refused.json as { error: { code: string; message: string } }).error;
  assert.equal(err.code, 'provider_needed');
  assert.match(err.message, /@needs-fireworks/);
  const forced = await api(env.gw, 'DELETE', `/manage/v1/providers/${id}?force=true`);
  assert.equal(forced.status, 200, JSON.stringify(forced.json));
  // With nothing left to serve it, the config answers 503 no_eligible_candidate (as documented),
  // not a 502 that would blame an upstream nobody called.
  for (const path of ['/alpha/v1/chat/completions', '/beta/v1/messages']) {
    const res = await fetch(`${env.gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: '@needs-fireworks', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await res.text();
    assert.equal(res.status, 503, text);
    const body = JSON.parse(text) as { error: { code?: string; type: string } };
    if (path.startsWith('/alpha')) assert.equal(body.error.code, 'no_eligible_candidate');
    else assert.equal(body.error.type, 'api_error');
  }
});

test('with another credential of the vendor left, the delete goes through', async () => {
  await api(env.gw, 'POST', '/manage/v1/routing-configs', {
    name: 'needs together',
    slug: 'needs-together',
    strategy: 'single',
    config: { model: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo' },
  });
  const second = await api(env.gw, 'POST', '/manage/v1/providers', {
    vendor: 'together',
    name: 'together two',
    api_key: 'sk-second-000000000000',
    base_url: `${env.fake.url}/together/v1`,
  });
  assert.equal(second.status, 201, JSON.stringify(second.json));
  const r = await api(env.gw, 'DELETE', `/manage/v1/providers/${env.providers.together}`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
});

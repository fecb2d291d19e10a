// Keys that say what they may do (issue 33), end to end through both official SDKs: allowed models
// (403 model_not_allowed before any upstream call), expiry (401 api_key_expired), rotation with a
// grace period seen by a second instance, metadata, last_used_at, and GET /manage/v1/me.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

type Json = Record<string, unknown>;
let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

async function createKey(body: Json): Promise<Json & { id: string; key: string }> {
  const r = await api(env.gw, 'POST', '/manage/v1/api-keys', body);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json as Json & { id: string; key: string };
}

const openaiFor = (key: string, gw: Gateway = env.gw) =>
  new OpenAI({ apiKey: key, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
const anthropicFor = (key: string, gw: Gateway = env.gw) =>
  new Anthropic({ apiKey: key, baseURL: `${gw.url}/beta`, maxRetries: 0 });

const hi = [{ role: 'user' as const, content: 'hi' }];
const failure = (e: unknown) => e;

async function alphaChat(key: string, model: string, gw?: Gateway): Promise<unknown> {
  return openaiFor(key, gw)
    .chat.completions.create({ model, max_tokens: 20, messages: hi })
    .then((r) => r, failure);
}

async function betaMessage(key: string, model: string, gw?: Gateway): Promise<unknown> {
  return anthropicFor(key, gw)
    .messages.create({ model, max_tokens: 20, messages: hi })
    .then((r) => r, failure);
}

describe('allowed_models', () => {
  test('gpt-4o* answers gpt-4o-mini and refuses claude with 403 model_not_allowed in both families', async () => {
    const k = await createKey({ name: 'gpt only', allowed_models: ['gpt-4o*'] });
    assert.deepEqual(k.allowed_models, ['gpt-4o*']);

    const ok = await alphaChat(k.key, 'openai/gpt-4o-mini');
    assert.ok(!(ok instanceof Error), String(ok));
    const bare = await alphaChat(k.key, 'gpt-4o-mini');
    assert.ok(!(bare instanceof Error), String(bare));

    env.fake.clearRequests();
    const refused = await alphaChat(k.key, 'anthropic/claude-3-5-haiku-latest');
    assert.deepEqual(env.fake.requests(), [], 'refused before any upstream call');
    assert.ok(refused instanceof OpenAI.APIError, String(refused));
    assert.equal(refused.status, 403);
    assert.equal(refused.type, 'permission_error');
    assert.equal(refused.code, 'model_not_allowed');
    assert.match(refused.message, /anthropic\/claude-3-5-haiku-latest/);

    const beta = await betaMessage(k.key, 'anthropic/claude-3-5-haiku-latest');
    assert.ok(beta instanceof Anthropic.APIError, String(beta));
    assert.equal(beta.status, 403);
    const body = beta.error as { type: string; error: { type: string; message: string } };
    assert.equal(body.error.type, 'permission_error');
    assert.match(body.error.message, /claude-3-5-haiku-latest/);
  });

  test('vendor patterns match bare names; @slug patterns match slugs; limits on size', async () => {
    const k = await createKey({ name: 'vendor', allowed_models: ['anthropic/*', '@support*'] });
    const ok = await betaMessage(k.key, 'claude-3-5-haiku-latest');
    assert.ok(!(ok instanceof Error), String(ok));
    const refused = await alphaChat(k.key, 'gpt-4o-mini');
    assert.equal((refused as InstanceType<typeof OpenAI.APIError>).status, 403);
    // A slug outside the list is refused by name, before the config is even looked up.
    const slug = await alphaChat(k.key, '@billing-bot');
    assert.equal((slug as InstanceType<typeof OpenAI.APIError>).code, 'model_not_allowed');

    const tooMany = await api(env.gw, 'POST', '/manage/v1/api-keys', {
      allowed_models: Array.from({ length: 51 }, (_, i) => `m${i}`),
    });
    assert.equal(tooMany.status, 400);
    const meta = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    assert.equal((await api(env.gw, 'POST', '/manage/v1/api-keys', { metadata: meta })).status, 400);
  });

  test('PATCH changes the list for the next call; null allows every model again', async () => {
    const k = await createKey({ name: 'patched' });
    assert.ok(!((await alphaChat(k.key, 'openai/gpt-4o-mini')) instanceof Error));
    const p = await api(env.gw, 'PATCH', `/manage/v1/api-keys/${k.id}`, { allowed_models: ['claude*'] });
    assert.equal(p.status, 200, JSON.stringify(p.json));
    assert.equal(((await alphaChat(k.key, 'openai/gpt-4o-mini')) as { status: number }).status, 403);
    await api(env.gw, 'PATCH', `/manage/v1/api-keys/${k.id}`, { allowed_models: null });
    assert.ok(!((await alphaChat(k.key, 'openai/gpt-4o-mini')) instanceof Error));
  });
});

describe('expires_at', () => {
  test('an expired key gets 401 api_key_expired through both SDKs; a future expiry works', async () => {
    const past = await createKey({ name: 'old', expires_at: new Date(Date.now() - 1000).toISOString() });
    const a = await alphaChat(past.key, 'openai/gpt-4o-mini');
    assert.ok(a instanceof OpenAI.APIError, String(a));
    assert.equal(a.status, 401);
    assert.equal(a.code, 'api_key_expired');
    assert.equal(a.type, 'authentication_error');
    const b = await betaMessage(past.key, 'anthropic/claude-3-5-haiku-latest');
    assert.ok(b instanceof Anthropic.APIError, String(b));
    assert.equal(b.status, 401);
    assert.equal((b.error as { error: { type: string } }).error.type, 'authentication_error');

    const soon = await createKey({ name: 'soon', expires_at: new Date(Date.now() + 800).toISOString() });
    assert.ok(!((await alphaChat(soon.key, 'openai/gpt-4o-mini')) instanceof Error));
    await new Promise((r) => setTimeout(r, 900));
    assert.equal(((await alphaChat(soon.key, 'openai/gpt-4o-mini')) as { code: string }).code, 'api_key_expired');

    const bad = await api(env.gw, 'POST', '/manage/v1/api-keys', { expires_at: 'tomorrow' });
    assert.equal(bad.status, 400);
  });
});

describe('rotation', () => {
  test('the old plaintext works during the grace period on every instance, then is refused', async () => {
    const second = await startGateway({ dataDir: env.gw.dataDir, adminKey: env.gw.adminKey });
    try {
      const k = await createKey({ name: 'rotating' });
      // The second instance has the old plaintext in memory before the rotation.
      assert.ok(!((await alphaChat(k.key, 'openai/gpt-4o-mini', second)) instanceof Error));
      const r = await api(env.gw, 'POST', `/manage/v1/api-keys/${k.id}/rotate`, { grace_period_seconds: 2 });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      const rotated = r.json as Json & { key: string; previous_key_expires_at: string };
      assert.notEqual(rotated.key, k.key);
      assert.equal(rotated.id, k.id);
      const graceEnds = Date.parse(rotated.previous_key_expires_at);

      for (const gw of [env.gw, second]) {
        assert.ok(!((await alphaChat(k.key, 'openai/gpt-4o-mini', gw)) instanceof Error), 'old in grace');
        assert.ok(!((await betaMessage(k.key, 'anthropic/claude-3-5-haiku-latest', gw)) instanceof Error));
      }
      // The new plaintext reaches the second instance by the store (one read), at once.
      assert.ok(!((await alphaChat(rotated.key, 'openai/gpt-4o-mini', second)) instanceof Error));

      await new Promise((res) => setTimeout(res, Math.max(0, graceEnds - Date.now()) + 100));
      for (const gw of [env.gw, second]) {
        const old = await alphaChat(k.key, 'openai/gpt-4o-mini', gw);
        assert.ok(old instanceof OpenAI.APIError, String(old));
        assert.equal(old.status, 401);
        const oldBeta = await betaMessage(k.key, 'anthropic/claude-3-5-haiku-latest', gw);
        assert.equal((oldBeta as { status: number }).status, 401);
        assert.ok(!((await alphaChat(rotated.key, 'openai/gpt-4o-mini', gw)) instanceof Error), 'new works');
      }
    } finally {
      await second.close({ keepData: true });
    }
  });

  test('grace 0 refuses the old plaintext at once; bounds are enforced', async () => {
    const k = await createKey({ name: 'rotate-now' });
    // Used first, so the gateway holds the key in memory (its hash remembered) when it is rotated.
    assert.ok(!((await alphaChat(k.key, 'openai/gpt-4o-mini')) instanceof Error));
    const r = await api(env.gw, 'POST', `/manage/v1/api-keys/${k.id}/rotate`, {});
    assert.equal(r.status, 200);
    assert.equal((r.json as Json).previous_key_expires_at, null);
    assert.equal(((await alphaChat(k.key, 'openai/gpt-4o-mini')) as { status: number }).status, 401);
    const tooLong = await api(env.gw, 'POST', `/manage/v1/api-keys/${k.id}/rotate`, {
      grace_period_seconds: 604_801,
    });
    assert.equal(tooLong.status, 400);
    assert.equal((await api(env.gw, 'POST', '/manage/v1/api-keys/key_nope/rotate', {})).status, 404);
  });
});

describe('metadata, last_used_at and /me', () => {
  test('metadata round-trips; last_used_at is written by the flush, not per call', async () => {
    const k = await createKey({ name: 'meta', metadata: { team: 'search', env: 'prod' } });
    assert.deepEqual(k.metadata, { team: 'search', env: 'prod' });
    assert.equal(k.last_used_at, null);
    assert.ok(!((await alphaChat(k.key, 'openai/gpt-4o-mini')) instanceof Error));
    await env.gw.app.svc.principals.flushUsage();
    const got = (await api(env.gw, 'GET', '/manage/v1/api-keys?limit=200')).json as { data: Json[] };
    const row = got.data.find((x) => x.id === k.id);
    assert.ok(row);
    assert.equal(typeof row.last_used_at, 'string');
    assert.deepEqual(row.metadata, { team: 'search', env: 'prod' });

    // The log row names the key with its metadata.
    const res = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: hi }),
    });
    assert.equal(res.status, 200);
    const requestId = res.headers.get('x-svc-request-id') ?? '';
    let log = await api(env.gw, 'GET', `/manage/v1/logs/${requestId}`);
    for (let i = 0; i < 50 && log.status === 404; i++) {
      await new Promise((r) => setTimeout(r, 50));
      log = await api(env.gw, 'GET', `/manage/v1/logs/${requestId}`);
    }
    assert.equal(log.status, 200, JSON.stringify(log.json));
    const logged = log.json as { api_key: Json | null };
    assert.equal(logged.api_key?.id, k.id);
    assert.deepEqual(logged.api_key?.metadata, { team: 'search', env: 'prod' });
  });

  test('GET /manage/v1/me names the key, its role, project, expiry and allowed models', async () => {
    const me = await api(env.gw, 'GET', '/manage/v1/me');
    assert.equal(me.status, 200);
    assert.equal((me.json as Json).role, 'admin');
    assert.equal((me.json as Json).project_id, null);

    const p = await api(env.gw, 'POST', '/manage/v1/projects', { name: 'me-project' });
    const projectId = (p.json as Json).id as string;
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const k = await createKey({ project_id: projectId, allowed_models: ['gpt-4o*'], expires_at: expires });
    const res = await fetch(`${env.gw.url}/manage/v1/me`, { headers: { authorization: `Bearer ${k.key}` } });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Json & { actor: Json };
    assert.equal(body.role, 'inference');
    assert.equal(body.project_id, projectId);
    assert.equal(body.expires_at, expires);
    assert.deepEqual(body.allowed_models, ['gpt-4o*']);
    assert.equal(body.actor.id, k.id);
    assert.equal(body.actor.type, 'api_key');
  });
});

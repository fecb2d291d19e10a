// Several credentials of one vendor: traffic is split by weight, a credential whose key is refused
// loses each call to the next one at once and is cooled down after three refusals, a standby
// (weight 0) only serves when the others cannot.
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

async function chat(model: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, text: await res.text() };
}

/** How many upstream calls each key (told apart by its last 4 characters) received. */
function keysSeen(prefix: string): Map<string, number> {
  const seen = new Map<string, number>();
  for (const r of env.fake.requests()) {
    if (!r.path.startsWith(prefix) || !r.path.endsWith('/chat/completions')) continue;
    const tail = (r.headers.authorization ?? '').slice(-4);
    seen.set(tail, (seen.get(tail) ?? 0) + 1);
  }
  return seen;
}

async function addCredential(vendor: string, apiKey: string, base: string, extra: object = {}): Promise<string> {
  const r = await api(env.gw, 'POST', '/manage/v1/providers', {
    vendor,
    name: `${vendor} ${apiKey.slice(-4)}`,
    api_key: apiKey,
    base_url: `${env.fake.url}${base}`,
    ...extra,
  });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return (r.json as { id: string }).id;
}

test('traffic is split by weight among the credentials of a vendor', async () => {
  // The stored together credential (weight 1) plus one of weight 3.
  await addCredential('together', 'sk-together-heavy-0003', '/together/v1', { weight: 3 });
  env.fake.clearRequests();
  const calls = 400;
  for (let i = 0; i < calls; i++) assert.equal((await chat(env.models.together)).status, 200);
  const seen = keysSeen('/together/');
  const heavy = seen.get('0003') ?? 0;
  assert.equal(
    [...seen.values()].reduce((a, b) => a + b, 0),
    calls,
  );
  // Expected share 0.75; 0.63-0.87 is more than five standard deviations either way at n = 400.
  assert.ok(heavy / calls > 0.63 && heavy / calls < 0.87, `heavy share ${heavy / calls}`);
});

test('a refused key loses each call to the other credential, then cools down', async () => {
  const model = env.models.fireworks;
  // The fake refuses keys without the sk- prefix with 401, as the vendor would.
  const bad = await addCredential('fireworks', 'revoked-key-0000000BAD1', '/fireworks/inference/v1', {
    weight: 1000,
    verify: false,
  });
  env.fake.clearRequests();
  for (let i = 0; i < 20; i++) {
    const r = await chat(model);
    assert.equal(r.status, 200, r.text);
  }
  const seen = keysSeen('/fireworks/');
  // Heavily weighted, the bad key is tried first until three refusals cool it down; after that
  // the calls go straight to the good key.
  assert.equal(seen.get('BAD1'), 3, JSON.stringify([...seen]));
  const view = (await api(env.gw, 'GET', `/manage/v1/providers/${bad}`)).json as {
    health: { cooldown_until: string | null };
  };
  assert.ok(view.health.cooldown_until, 'the refused credential shows its cooldown');
  assert.ok(Date.parse(view.health.cooldown_until) > Date.now());
});

test('a standby (weight 0) serves only when the others cannot', async () => {
  const model = env.models.openai;
  await addCredential('openai', 'sk-openai-standby-0STB', '/openai/v1', { weight: 0 });
  env.fake.clearRequests();
  for (let i = 0; i < 20; i++) assert.equal((await chat(model)).status, 200);
  assert.equal(keysSeen('/openai/').get('0STB'), undefined, 'the standby took no traffic');
  // The weighted credential's endpoint now refuses connections (port 1 on loopback): the standby
  // takes over within the same call.
  const swapped = await api(env.gw, 'PATCH', `/manage/v1/providers/${env.providers.openai}`, {
    base_url: 'http://127.0.0.1:1/v1',
  });
  assert.equal(swapped.status, 200, JSON.stringify(swapped.json));
  env.fake.clearRequests();
  for (let i = 0; i < 5; i++) {
    const r = await chat(model);
    assert.equal(r.status, 200, r.text);
  }
  assert.equal(keysSeen('/openai/').get('0STB'), 5);
});

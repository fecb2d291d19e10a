// The model catalog end to end on the fake upstream (issue 36 items 5-7): the management listing
// with filters and overrides, aliases and price overrides through a real call (the trace names the
// alias, the log's cost uses the override), and the proxy's model lists through both official SDKs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

type Json = Record<string, unknown>;
type Model = Json & { id: string; kind: string; capabilities: Record<string, boolean>; prices: Json };
let env: ProxyEnv;

async function project(name: string, settings: Json = {}, keyFields: Json = {}) {
  const p = await api(env.gw, 'POST', '/manage/v1/projects', { name, settings });
  assert.equal(p.status, 201, JSON.stringify(p.json));
  const id = (p.json as Json).id as string;
  const k = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: `${name} key`, project_id: id, ...keyFields });
  assert.equal(k.status, 201, JSON.stringify(k.json));
  return { id, key: (k.json as Json).key as string };
}

async function models(query = ''): Promise<Model[]> {
  const r = await api(env.gw, 'GET', `/manage/v1/models${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return (r.json as { data: Model[] }).data;
}

async function openaiIds(key: string): Promise<string[]> {
  const client = new OpenAI({ apiKey: key, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
  const ids: string[] = [];
  for await (const m of client.models.list()) ids.push(m.id);
  return ids.sort();
}

async function anthropicIds(key: string): Promise<string[]> {
  const client = new Anthropic({ apiKey: key, baseURL: `${env.gw.url}/beta`, maxRetries: 0 });
  const ids: string[] = [];
  for await (const m of client.models.list({ limit: 7 })) ids.push(m.id);
  return ids.sort();
}

before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

describe('GET /manage/v1/models', () => {
  test('lists reachable models with prices, capabilities and the credentials that serve them', async () => {
    const all = await models();
    const mini = all.find((m) => m.id === 'openai/gpt-4o-mini');
    assert.ok(mini, 'openai/gpt-4o-mini is listed');
    assert.equal(mini.kind, 'chat');
    assert.ok((mini.context_window as number) > 0 && (mini.max_output_tokens as number) > 0);
    assert.equal(typeof mini.prices.input, 'number');
    assert.equal(mini.prices.overridden, false);
    assert.deepEqual(
      (mini.credentials as Json[]).map((c) => c.id),
      [env.providers.openai],
    );
    for (const kind of ['chat', 'embeddings', 'images', 'audio'])
      assert.ok(
        all.some((m) => m.kind === kind),
        `some ${kind} model listed`,
      );
  });

  test('filters by vendor, kind and capability', async () => {
    const anthropic = await models('?vendor=anthropic');
    assert.ok(anthropic.length > 0);
    assert.ok(anthropic.every((m) => m.vendor === 'anthropic'));
    const embeddings = await models('?kind=embeddings');
    assert.ok(embeddings.length > 0 && embeddings.every((m) => m.kind === 'embeddings'));
    const vision = await models('?capability=vision&vendor=openai');
    assert.ok(vision.length > 0 && vision.every((m) => m.capabilities.vision));
    const all = await models('?vendor=openai');
    assert.ok(vision.length < all.length, 'the capability filter leaves some out');
    const bad = await api(env.gw, 'GET', '/manage/v1/models?capability=telepathy');
    assert.equal(bad.status, 400);
  });

  test('get_model takes any spelling; an unknown model is a 404', async () => {
    const r = await api(
      env.gw,
      'GET',
      `/manage/v1/models/${encodeURIComponent('anthropic/claude-sonnet-4-5-20250929')}`,
    );
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal((r.json as Json).id, 'anthropic/claude-sonnet-4-5');
    const missing = await api(env.gw, 'GET', `/manage/v1/models/${encodeURIComponent('openai/no-such-model')}`);
    assert.equal(missing.status, 404);
  });

  test('names the routing configs that use a model', async () => {
    const rc = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
      slug: 'catalog-main',
      strategy: 'fallback',
      config: { models: ['openai/gpt-4o-mini', 'anthropic/claude-3-5-haiku-latest'] },
    });
    assert.equal(rc.status, 201, JSON.stringify(rc.json));
    const m = await api(env.gw, 'GET', `/manage/v1/models/${encodeURIComponent('openai/gpt-4o-mini')}`);
    assert.deepEqual((m.json as Json).configs, ['@catalog-main']);
  });
});

describe('aliases and price overrides', () => {
  test('bad names and targets are 400s naming the field', async () => {
    const shadow = await api(env.gw, 'POST', '/manage/v1/model-aliases', {
      name: 'gpt-4o',
      model: 'openai/gpt-4o-mini',
    });
    assert.equal(shadow.status, 400);
    assert.match(JSON.stringify(shadow.json), /already a model name/);
    const target = await api(env.gw, 'POST', '/manage/v1/model-aliases', { name: 'fast', model: 'nowhere' });
    assert.equal(target.status, 400);
    const price = await api(env.gw, 'POST', '/manage/v1/model-prices', {
      model: 'openai/gpt-4o-mini',
      input: -1,
      output: 1,
    });
    assert.equal(price.status, 400);
  });

  test('an alias resolves before routing, shows in the trace, and the log prices the call at the override', async () => {
    const path = `/manage/v1/models/${encodeURIComponent('openai/gpt-4o-mini')}`;
    const list = ((await api(env.gw, 'GET', path)).json as { prices: Record<string, number> }).prices;
    const set = await api(env.gw, 'POST', '/manage/v1/model-aliases', { name: 'fast', model: 'openai/gpt-4o-mini' });
    assert.equal(set.status, 200, JSON.stringify(set.json));
    const price = await api(env.gw, 'POST', '/manage/v1/model-prices', {
      model: 'openai/gpt-4o-mini-2024-07-18',
      input: 1000,
      output: 3000,
    });
    assert.equal(price.status, 200, JSON.stringify(price.json));
    assert.equal((price.json as Json).model, 'openai/gpt-4o-mini', 'stored under the catalog id');
    const listed = await api(env.gw, 'GET', path);
    // Cache rates left out keep the list's ratio to the input price.
    assert.deepEqual((listed.json as { prices: Json }).prices, {
      input: 1000,
      output: 3000,
      cache_read: (1000 * list.cache_read) / list.input,
      cache_write: (1000 * list.cache_write) / list.input,
      overridden: true,
    });
    assert.deepEqual((listed.json as Json).aliases, ['fast']);

    const client = new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    assert.equal(response.headers.get('x-svc-model-used'), 'gpt-4o-mini');
    const usage = data.usage;
    assert.ok(usage && usage.prompt_tokens > 0);
    const expected = (usage.prompt_tokens * 1000 + usage.completion_tokens * 3000) / 1e6;
    assert.ok(Math.abs(Number(response.headers.get('x-svc-cost-usd')) - expected) < 1e-9);

    await env.gw.app.svc.logs.flush();
    const id = response.headers.get('x-svc-request-id');
    const log = await api(env.gw, 'GET', `/manage/v1/logs/${id}`);
    assert.equal(log.status, 200, JSON.stringify(log.json));
    assert.ok(Math.abs(((log.json as Json).cost_usd as number) - expected) < 1e-9, JSON.stringify(log.json));
    const trace = await api(env.gw, 'GET', `/manage/v1/logs/${id}/trace`);
    assert.match(JSON.stringify(trace.json), /"alias":\{"name":"fast","model":"openai\/gpt-4o-mini"\}/);
  });

  test("a key's allow-list admits an alias by its name or by what it stands for, nothing else", async () => {
    const dry = (key: string) =>
      fetch(`${env.gw.url}/alpha/v1/dry-run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const other = await project('other-vendor', {}, { allowed_models: ['anthropic/*'] });
    const refused = await dry(other.key);
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: Json }).error.code, 'model_not_allowed');
    const byName = await project('by-name', {}, { allowed_models: ['fast'] });
    assert.equal((await dry(byName.key)).status, 200);
    const byTarget = await project('by-target', {}, { allowed_models: ['openai/gpt-4o*'] });
    assert.equal((await dry(byTarget.key)).status, 200);
  });

  test('an alias for a routing config, in the dry run; deleting it ends it from the next call', async () => {
    await api(env.gw, 'POST', '/manage/v1/model-aliases', { name: 'main', model: '@catalog-main' });
    const dry = await fetch(`${env.gw.url}/alpha/v1/dry-run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = (await dry.json()) as { dry_run: Json };
    assert.equal(dry.status, 200, JSON.stringify(body));
    assert.deepEqual(body.dry_run.alias, { name: 'main', model: '@catalog-main' });
    assert.deepEqual((body.dry_run.config as Json).slug, 'catalog-main');
    const del = await api(env.gw, 'DELETE', '/manage/v1/model-aliases/main');
    assert.equal(del.status, 200);
    const after = await fetch(`${env.gw.url}/alpha/v1/dry-run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(after.status, 400);
  });
});

describe('GET /v1/models through the official SDKs', () => {
  test('empty by default in both families', async () => {
    const p = await project('quiet');
    assert.deepEqual(await openaiIds(p.key), []);
    assert.deepEqual(await anthropicIds(p.key), []);
  });

  test('list_models: exactly the reachable models, in both shapes; an allow-listed key sees its own', async () => {
    const p = await project('lister', { list_models: true });
    const reachable = (await models()).map((m) => m.id).sort();
    assert.ok(reachable.length > 20);
    assert.deepEqual(await openaiIds(p.key), reachable);
    // The beta SDK pages through has_more / last_id: seven at a time.
    assert.deepEqual(await anthropicIds(p.key), reachable);

    const narrow = await project('narrow', { list_models: true }, { allowed_models: ['anthropic/*'] });
    const mine = await openaiIds(narrow.key);
    assert.deepEqual(
      mine,
      reachable.filter((id) => id.startsWith('anthropic/')),
    );
    assert.deepEqual(await anthropicIds(narrow.key), mine);
  });

  test('the contract answers stay exact by default', async () => {
    const p = await project('contract');
    const get = (path: string) => fetch(`${env.gw.url}${path}`, { headers: { authorization: `Bearer ${p.key}` } });
    assert.deepEqual(await (await get('/alpha/v1/models')).json(), { object: 'list', data: [] });
    assert.deepEqual(await (await get('/beta/v1/models')).json(), { data: [], has_more: false });
  });

  test('the beta list refuses a bad limit with a 400 in its own shape', async () => {
    const p = await project('pager', { list_models: true });
    const r = await fetch(`${env.gw.url}/beta/v1/models?limit=0`, { headers: { 'x-api-key': p.key } });
    assert.equal(r.status, 400);
    const body = (await r.json()) as Json;
    assert.equal(body.type, 'error');
  });
});

// A gateway with traffic for the dashboard tests, made the way users make it: projects, keys,
// routing configs, a budget and a webhook endpoint through the management API, and calls through
// the proxy endpoints of both families against the fake upstream (fallbacks, errors, cache hits,
// end users, tags, two projects).
import type { RequestLogRow } from '../../../src/store/request-logs.ts';
import { idAt } from '../../../src/util/ids.ts';
import { api, type ProxyEnv, startProxyEnv } from '../../helpers/proxy-env.ts';

export interface Seeded {
  env: ProxyEnv;
  projectA: { id: string; key: string; name: string };
  projectB: { id: string; key: string; name: string };
  /** Request ids worth finding in the UI. */
  ids: { fallback: string; beta: string; projectA: string; projectB: string; serverError: string };
  configs: { main: string; cheap: string };
}

async function created<T>(env: ProxyEnv, path: string, body: unknown): Promise<T> {
  const r = await api(env.gw, 'POST', path, body);
  if (r.status !== 200 && r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json as T;
}

async function call(
  env: ProxyEnv,
  path: string,
  body: unknown,
  opts: { key?: string; headers?: Record<string, string> } = {},
): Promise<string> {
  const res = await fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${opts.key ?? env.gw.adminKey}`,
      'content-type': 'application/json',
      ...opts.headers,
    },
    body: JSON.stringify(body),
  });
  await res.text();
  return res.headers.get('x-svc-request-id') ?? '';
}

const chat = (model: string, content = 'Hello there') => ({
  model,
  max_tokens: 32,
  messages: [{ role: 'user', content }],
});

const HISTORY_MODELS = [
  ['gpt-4o-mini', 'openai', 0.15, 0.6],
  ['claude-3-5-haiku-latest', 'anthropic', 0.8, 4],
  ['gemini-2.0-flash', 'google', 0.1, 0.4],
  ['gpt-4o', 'openai', 2.5, 10],
] as const;

/**
 * A day of earlier traffic, so the charts have a shape: rows written through the store's own
 * insert (the one the log writer uses, rollups included), spread over the 24 hours before the
 * live calls with a daily rhythm.
 */
async function seedHistory(env: ProxyEnv, projectIds: string[], rows: number): Promise<void> {
  const orgId = env.gw.app.svc.bootstrap.orgId;
  const end = Date.now() - 15 * 60_000;
  const span = 23.5 * 3_600_000;
  let s = 7;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const batch: RequestLogRow[] = [];
  for (let i = 0; i < rows; i++) {
    // Denser in the afternoon than at night: a sine over the day, sampled by rejection.
    let t = 0;
    do t = end - rnd() * span;
    while (rnd() > 0.55 + 0.45 * Math.sin((((t / 3_600_000) % 24) / 24) * 2 * Math.PI));
    const [model, provider, inPrice, outPrice] = HISTORY_MODELS[
      Math.floor(rnd() * HISTORY_MODELS.length)
    ] as (typeof HISTORY_MODELS)[number];
    const status = rnd() < 0.96 ? 200 : rnd() < 0.6 ? 429 : 502;
    const input = 30 + Math.floor(rnd() * 1500);
    const output = status === 200 ? 10 + Math.floor(rnd() * 400) : 0;
    batch.push({
      id: idAt('req', Math.floor(t), `history-${i}`),
      requestType: 'chat_completion',
      orgId,
      projectId: projectIds[i % projectIds.length] ?? null,
      apiKeyId: null,
      endUser: rnd() < 0.7 ? `user_${Math.floor(rnd() * 12)}` : null,
      tags: rnd() < 0.4 ? { team: rnd() < 0.5 ? 'search' : 'support' } : null,
      traceId: null,
      conversationId: null,
      modelRequested: `${provider}/${model}`,
      modelUsed: model,
      provider,
      credentialId: null,
      statusCode: status,
      latencyMs: Math.round(Math.exp(5 + rnd() * 2.5)),
      ttfbMs: null,
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      costUsd: (input * inPrice + output * outPrice) / 1e6,
      error: null,
      decisionTrace: null,
      requestBody: null,
      responseBody: null,
      createdAt: new Date(Math.floor(t)).toISOString(),
      cache: null,
      replayOf: null,
      savedCostUsd: 0,
      cacheSimilarity: null,
      cacheShadowMatch: null,
    });
  }
  batch.sort((a, b) => (a.id < b.id ? -1 : 1));
  await env.gw.app.svc.stores.logs.insertMany(batch);
}

export async function seedGateway(opts: { history?: number } = {}): Promise<Seeded> {
  const env = await startProxyEnv();
  const a = await created<{ id: string; name: string }>(env, '/manage/v1/projects', {
    name: 'Search',
    description: 'ranking experiments',
    settings: { semantic_cache: { enabled: true, mode: 'exact', embedder: 'local' } },
  });
  const b = await created<{ id: string; name: string }>(env, '/manage/v1/projects', { name: 'Support' });
  const keyA = (await created<{ key: string }>(env, '/manage/v1/api-keys', { name: 'search app', project_id: a.id }))
    .key;
  const keyB = (await created<{ key: string }>(env, '/manage/v1/api-keys', { name: 'support bot', project_id: b.id }))
    .key;

  // The fallback's first attempt fails on a vendor nothing else uses, so its cooldown (after three
  // failures in a row) cannot change another call's route.
  const main = await created<{ id: string }>(env, '/manage/v1/routing-configs', {
    name: 'Main',
    slug: 'main',
    strategy: 'fallback',
    config: {
      attempts: [
        { model: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo-fail-500' },
        { model: 'anthropic/claude-3-5-haiku-latest' },
      ],
    },
  });
  const cheap = await created<{ id: string }>(env, '/manage/v1/routing-configs', {
    name: 'Cheap',
    slug: 'cheap',
    strategy: 'single',
    config: { model: 'google/gemini-2.0-flash' },
  });

  if (opts.history) await seedHistory(env, [a.id, b.id], opts.history);
  // Budgets first: the calls below then count against them as they settle.
  await created(env, '/manage/v1/budgets', {
    name: 'Org monthly',
    scope: { type: 'org' },
    period: 'monthly',
    limit_usd: 5,
  });
  await created(env, '/manage/v1/budgets', {
    name: 'Search daily',
    scope: { type: 'project', id: a.id },
    period: 'daily',
    limit_usd: 0.5,
    action: 'alert_only',
    thresholds: [0.5, 0.9],
  });
  const tagged = { 'x-svc-user-tags': 'team=search', 'x-svc-user-id': 'alice' };
  const fallback = await call(env, '/alpha/v1/chat/completions', chat('@main'), { headers: tagged });
  await call(env, '/alpha/v1/chat/completions', chat('@main', 'Second question'), {
    headers: { 'x-svc-user-id': 'bob' },
  });
  for (const vendor of ['openai', 'anthropic', 'google', 'azure-openai', 'bedrock', 'fireworks']) {
    await call(env, '/alpha/v1/chat/completions', chat(env.models[vendor] as string, `Hi ${vendor}`), {
      headers: tagged,
    });
  }
  const beta = await call(env, '/beta/v1/messages', chat('openai/gpt-4o-mini', 'Hello from the messages family'));
  await call(env, '/alpha/v1/chat/completions', chat('openai/gpt-4o-mini-fail-400'));
  const serverError = await call(
    env,
    '/alpha/v1/chat/completions',
    chat('fireworks/accounts/fireworks/models/llama-v3p1-70b-instruct-fail-500'),
  );
  await call(env, '/alpha/v1/chat/completions', chat('@cheap', 'Cheap one'));
  // Project A: the same prompt three times, so the exact cache answers the last two.
  let projectA = '';
  for (let i = 0; i < 3; i++) {
    projectA = await call(env, '/alpha/v1/chat/completions', chat('openai/gpt-4o-mini', 'What is a switchyard?'), {
      key: keyA,
      headers: { 'x-svc-user-id': 'carol' },
    });
  }
  const projectB = await call(env, '/alpha/v1/chat/completions', chat('anthropic/claude-3-5-haiku-latest', 'Help me'), {
    key: keyB,
    headers: { 'x-svc-user-id': 'dave' },
  });

  const hook = await created<{ id: string }>(env, '/manage/v1/webhooks/endpoints', {
    url: `${env.fake.url}/hooks`,
    event_types: ['*'],
    description: 'ops alerts',
  });
  await api(env.gw, 'POST', `/manage/v1/webhooks/endpoints/${hook.id}/test`, {});

  return {
    env,
    projectA: { id: a.id, key: keyA, name: a.name },
    projectB: { id: b.id, key: keyB, name: b.name },
    ids: { fallback, beta, projectA, projectB, serverError },
    configs: { main: main.id, cheap: cheap.id },
  };
}

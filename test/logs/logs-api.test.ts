// The request log over the management API, end to end against the fake upstream: filters, the full
// record, the trace, replay through another config, project isolation, export, and the MCP tools.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;

interface Summary {
  id: string;
  request_type: string;
  project_id: string | null;
  model_requested: string;
  model_used: string | null;
  provider: string | null;
  status_code: number;
  latency_ms: number;
  cost_usd: number | null;
  end_user: string | null;
  tags: Record<string, string>;
  trace_id: string | null;
  conversation_id: string | null;
  cache: string | null;
  replay_of: string | null;
  saved_cost_usd: number;
  cache_similarity: number | null;
  cache_shadow_match: boolean | null;
}
interface Page {
  data: Summary[];
  next_cursor: string | null;
  has_more: boolean;
}

async function proxy(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  key = env.gw.adminKey,
): Promise<{ status: number; id: string }> {
  const res = await fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await res.text();
  return { status: res.status, id: res.headers.get('x-svc-request-id') ?? '' };
}

async function get<T>(path: string, key = env.gw.adminKey): Promise<{ status: number; body: T; text: string }> {
  const res = await fetch(`${env.gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body: body as T, text };
}

const chat = (model: string, content = 'hi') => ({ model, max_tokens: 20, messages: [{ role: 'user', content }] });
const ids: Record<string, string> = {};
let projA = '';
let projB = '';
let keyA = '';
let keyB = '';

before(async () => {
  env = await startProxyEnv();
  const a = await api(env.gw, 'POST', '/manage/v1/projects', { name: 'logs A' });
  const b = await api(env.gw, 'POST', '/manage/v1/projects', { name: 'logs B', settings: { log_bodies: false } });
  projA = (a.json as { id: string }).id;
  projB = (b.json as { id: string }).id;
  keyA = ((await api(env.gw, 'POST', '/manage/v1/api-keys', { name: 'a', project_id: projA })).json as { key: string })
    .key;
  keyB = ((await api(env.gw, 'POST', '/manage/v1/api-keys', { name: 'b', project_id: projB })).json as { key: string })
    .key;
  const tagged = {
    'x-svc-user-tags': 'team=search,env=prod',
    'x-svc-trace-id': 'trace-42',
    'x-svc-conversation-id': 'conv-7',
    'x-svc-user-id': 'user-9',
  };
  ids.tagged = (await proxy('/alpha/v1/chat/completions', chat(env.models.openai), tagged, keyA)).id;
  ids.beta = (await proxy('/beta/v1/messages', chat(env.models.anthropic), {}, keyA)).id;
  ids.failed = (await proxy('/alpha/v1/chat/completions', chat(`${env.models.openai}-fail-429`), {}, keyA)).id;
  ids.slow = (await proxy('/alpha/v1/chat/completions', chat(`${env.models.openai}-slow-300`), {}, keyA)).id;
  ids.b = (await proxy('/alpha/v1/chat/completions', chat(env.models.openai), {}, keyB)).id;
  ids.embedding = (
    await proxy('/alpha/v1/embeddings', { model: 'openai/text-embedding-3-small', input: 'x' }, {}, keyA)
  ).id;
});
after(async () => {
  await env?.close();
});

describe('list', () => {
  test('newest first, with every summary field', async () => {
    const r = await get<Page>('/manage/v1/logs?limit=200');
    assert.equal(r.status, 200, r.text);
    const order = r.body.data.map((s) => s.id);
    const mine = [ids.embedding, ids.b, ids.slow, ids.failed, ids.beta, ids.tagged];
    assert.deepEqual(
      order.filter((id) => mine.includes(id)),
      mine,
    );
    const tagged = r.body.data.find((s) => s.id === ids.tagged);
    assert.ok(tagged);
    assert.equal(tagged.request_type, 'chat_completion');
    assert.equal(tagged.project_id, projA);
    assert.equal(tagged.provider, 'openai');
    assert.equal(tagged.status_code, 200);
    assert.ok((tagged.cost_usd ?? 0) > 0);
    assert.deepEqual(tagged.tags, { team: 'search', env: 'prod' });
    assert.equal(tagged.trace_id, 'trace-42');
    assert.equal(tagged.conversation_id, 'conv-7');
    assert.equal(tagged.end_user, 'user-9');
    assert.equal(tagged.cache, null, 'no cache is configured');
    assert.equal(tagged.saved_cost_usd, 0);
    assert.equal(tagged.cache_similarity, null);
    assert.equal(tagged.cache_shadow_match, null);
    for (const k of [
      'created_at',
      'model_requested',
      'model_used',
      'latency_ms',
      'ttfb_ms',
      'input_tokens',
      'output_tokens',
    ])
      assert.ok(k in tagged, k);
  });

  test('every filter', async () => {
    const only = async (query: string) =>
      (await get<Page>(`/manage/v1/logs?project_id=${projA}&${query}`)).body.data.map((s) => s.id);
    assert.deepEqual(await only('status=4xx'), [ids.failed]);
    assert.deepEqual(await only('status=5xx'), []);
    assert.deepEqual(await only(`tags=${encodeURIComponent('{"team":"search"}')}`), [ids.tagged]);
    assert.deepEqual(await only(`tags=${encodeURIComponent('{"team":"search","env":"dev"}')}`), []);
    assert.deepEqual(await only('trace_id=trace-42'), [ids.tagged]);
    assert.deepEqual(await only('conversation_id=conv-7'), [ids.tagged]);
    assert.deepEqual(await only('end_user=user-9'), [ids.tagged]);
    assert.deepEqual(await only('request_type=message'), [ids.beta]);
    assert.deepEqual(await only('request_type=embedding'), [ids.embedding]);
    assert.deepEqual(await only('provider=anthropic'), [ids.beta]);
    assert.deepEqual(await only('min_latency_ms=250'), [ids.slow]);
    assert.ok((await only(`model=${encodeURIComponent(env.models.anthropic)}`)).includes(ids.beta));
    const future = new Date(Date.now() + 60_000).toISOString();
    assert.deepEqual(await only(`start=${future}`), []);
    assert.equal((await only(`end=${future}`)).length, 5);
  });

  test('cursor pages cover every row once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${cursor}` : '';
      const page: Page = (await get<Page>(`/manage/v1/logs?project_id=${projA}&limit=2${q}`)).body;
      seen.push(...page.data.map((s) => s.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.equal(seen.length, 5);
    assert.equal(new Set(seen).size, 5);
  });

  test('bad parameters are 400s naming them', async () => {
    for (const [query, param] of [
      ['tags=notjson', 'tags'],
      ['tags=%5B1%5D', 'tags'],
      ['start=yesterday', 'start'],
      ['start=2026-02-01T00:00:00Z&end=2026-01-01T00:00:00Z', 'end'],
      ['status=3xx', 'status'],
      ['cursor=abc', 'cursor'],
    ]) {
      const r = await get<{ error: { param: string } }>(`/manage/v1/logs?${query}`);
      assert.equal(r.status, 400, `${query}: ${r.text}`);
      assert.match(r.text, new RegExp(param));
    }
  });
});

describe('one record', () => {
  test('full record: bodies, trace, attempts and the cost breakdown', async () => {
    const r = await get<{
      request: { model: string };
      response: { choices: unknown[] };
      attempts: Array<{ provider: string; status: number }>;
      decision_trace: { policy: string };
      cost: { input_usd: number; output_usd: number; total_usd: number; other_attempts_usd: number };
      bodies_retained: boolean;
    }>(`/manage/v1/logs/${ids.tagged}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.request.model, env.models.openai);
    assert.ok(Array.isArray(r.body.response.choices));
    assert.equal(r.body.attempts[0].status, 200);
    assert.equal(r.body.decision_trace.policy, 'direct');
    assert.ok(r.body.cost.input_usd > 0 && r.body.cost.output_usd > 0);
    assert.ok(Math.abs(r.body.cost.input_usd + r.body.cost.output_usd - r.body.cost.total_usd) < 1e-8);
    assert.equal(r.body.bodies_retained, true);
    const trace = await get<{ request_id: string; decision_trace: { policy: string } }>(
      `/manage/v1/logs/${ids.tagged}/trace`,
    );
    assert.equal(trace.body.decision_trace.policy, 'direct');
    const noBodies = await get<{ request: unknown; bodies_retained: boolean }>(`/manage/v1/logs/${ids.b}`);
    assert.equal(noBodies.body.request, null);
    assert.equal(noBodies.body.bodies_retained, false);
    assert.equal((await get('/manage/v1/logs/req_01jzzzzzzzzzzzzzzzzzzzzzzz')).status, 404);
  });

  test('a project key reads its own project only (another project’s row is a 404)', async () => {
    assert.equal((await get(`/manage/v1/logs/${ids.tagged}`, keyA)).status, 200);
    assert.equal((await get(`/manage/v1/logs/${ids.tagged}`, keyB)).status, 404);
    assert.equal((await get(`/manage/v1/logs/${ids.tagged}/trace`, keyB)).status, 404);
    const listB = await get<Page>('/manage/v1/logs', keyB);
    assert.deepEqual(
      listB.body.data.map((s) => s.id),
      [ids.b],
    );
    const asking = await get<Page>(`/manage/v1/logs?project_id=${projA}`, keyB);
    assert.deepEqual(asking.body.data, []);
  });
});

describe('replay', () => {
  test('through another config: a new row with replay_of, answered in the original family', async () => {
    const cfg = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
      name: 'replay target',
      slug: 'replay-target',
      strategy: 'single',
      config: { model: env.models.anthropic },
    });
    assert.equal(cfg.status, 201, JSON.stringify(cfg.json));
    const r = await api(env.gw, 'POST', `/manage/v1/logs/${ids.tagged}/replay`, {
      routing_config: 'replay-target',
      dry_run: false,
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const out = r.json as {
      request_id: string;
      replay_of: string;
      response: { object: string; choices: unknown[] };
      provider: string;
      status_code: number;
      cost_usd: number;
    };
    assert.equal(out.replay_of, ids.tagged);
    assert.equal(out.status_code, 200);
    assert.equal(out.provider, 'anthropic');
    assert.equal(out.response.object, 'chat.completion', 'alpha shape, like the original');
    const row = await get<Summary>(`/manage/v1/logs/${out.request_id}`);
    assert.equal(row.status, 200, row.text);
    assert.equal(row.body.replay_of, ids.tagged);
    assert.equal(row.body.model_requested, '@replay-target');
    assert.equal(row.body.project_id, projA, 'replayed as the original project');

    const dry = await api(env.gw, 'POST', `/manage/v1/logs/${ids.beta}/replay`, {
      routing_config: '@replay-target',
      dry_run: true,
    });
    assert.equal(dry.status, 200, JSON.stringify(dry.json));
    assert.ok(JSON.stringify(dry.json).includes('replay-target'));
  });

  test('no retained body is a 409; an unknown config a 404', async () => {
    const r = await api(env.gw, 'POST', `/manage/v1/logs/${ids.b}/replay`, { dry_run: false });
    assert.equal(r.status, 409, JSON.stringify(r.json));
    assert.equal((r.json as { error: { code: string } }).error.code, 'log_body_not_retained');
    const emb = await api(env.gw, 'POST', `/manage/v1/logs/${ids.embedding}/replay`, {});
    assert.equal(emb.status, 409);
    const missing = await api(env.gw, 'POST', `/manage/v1/logs/${ids.tagged}/replay`, {
      routing_config: 'nope',
      dry_run: true,
    });
    assert.equal(missing.status, 404, JSON.stringify(missing.json));
  });
});

describe('export', () => {
  test('ndjson and csv stream the filtered rows', async () => {
    const nd = await get<unknown>(`/manage/v1/logs/export?format=ndjson&project_id=${projA}`);
    assert.equal(nd.status, 200);
    const lines = nd.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Summary);
    assert.ok(lines.length >= 5);
    assert.ok(lines.every((l) => l.project_id === projA));
    const csv = await get<unknown>(`/manage/v1/logs/export?format=csv&status=4xx&project_id=${projA}`);
    const rows = csv.text.trim().split('\r\n');
    assert.match(rows[0], /^id,created_at,request_type/);
    // Replays refused by routing are logged too (as 4xx rows of the project).
    assert.ok(rows.slice(1).some((r) => r.startsWith(`${ids.failed},`)));
    const status = rows[0].split(',').indexOf('status_code');
    assert.ok(rows.slice(1).every((r) => r.split(',')[status]?.startsWith('4')));
    assert.equal((await get(`/manage/v1/logs/export?format=xml`)).status, 400);
    const isolated = await get<unknown>('/manage/v1/logs/export', keyB);
    assert.equal(isolated.text.trim().split('\n').length, 1);
  });
});

test('the MCP tools list, get, trace and replay', async () => {
  const client = new Client({ name: 'logs-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.gw.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${env.gw.adminKey}` } },
    }),
  );
  try {
    const listed = await client.callTool({
      name: 'list_logs',
      arguments: { project_id: projA, status: '4xx', request_type: 'chat_completion' },
    });
    assert.ok(!listed.isError, JSON.stringify(listed));
    const found = (listed.structuredContent as Page).data;
    assert.ok(found.some((s) => s.id === ids.failed));
    assert.ok(found.every((s) => s.status_code >= 400 && s.status_code < 500));
    const one = await client.callTool({ name: 'get_log', arguments: { request_id: ids.tagged } });
    assert.equal((one.structuredContent as { id: string }).id, ids.tagged);
    const trace = await client.callTool({ name: 'get_request_trace', arguments: { request_id: ids.tagged } });
    assert.ok(!trace.isError, JSON.stringify(trace));
    const replayed = await client.callTool({
      name: 'replay_log_entry',
      arguments: { request_id: ids.tagged, model: env.models.google, dry_run: false },
    });
    assert.ok(!replayed.isError, JSON.stringify(replayed));
    assert.equal((replayed.structuredContent as { status_code: number }).status_code, 200);
  } finally {
    await client.close();
  }
});

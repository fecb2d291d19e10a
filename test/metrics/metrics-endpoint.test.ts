// GET /metrics end to end: a gateway on the fake upstream serves calls (success, an upstream 429, a
// stream, unknown models), and each scrape is parsed as Prometheus exposition text.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { call, startGateway } from '../helpers/gateway.ts';
import { type ProxyEnv, scripted, startProxyEnv } from '../helpers/proxy-env.ts';
import { histogramCount, labelSets, type PromMetrics, parseExposition, sampleSum } from './exposition.ts';

async function scrape(url: string, key?: string): Promise<PromMetrics> {
  const res = await fetch(`${url}/metrics`, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

async function post(env: ProxyEnv, path: string, body: unknown): Promise<Response> {
  return fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const chatBody = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] });

const ALPHA_CHAT = { family: 'alpha', endpoint: 'chat_completions' };
const BETA_MESSAGES = { family: 'beta', endpoint: 'messages' };

describe('GET /metrics', () => {
  let env: ProxyEnv;
  const scrapeEnv = () => scrape(env.gw.url, env.gw.adminKey);

  before(async () => {
    env = await startProxyEnv();
  });
  after(async () => {
    await env?.close();
  });

  test('needs an org-wide key: 401 without one or with a wrong one, 403 for a project key', async () => {
    const none = await fetch(`${env.gw.url}/metrics`);
    assert.equal(none.status, 401);
    const noneBody = (await none.json()) as { error: { type: string; code: string } };
    assert.equal(noneBody.error.type, 'authentication_error');
    assert.equal(noneBody.error.code, 'invalid_api_key');

    const wrong = await fetch(`${env.gw.url}/metrics`, { headers: { authorization: 'Bearer sy-not-a-key' } });
    assert.equal(wrong.status, 401);

    const projects = (await call(env.gw, 'GET', '/manage/v1/projects')).body as { data: Array<{ id: string }> };
    const created = await call(env.gw, 'POST', '/manage/v1/api-keys', { project_id: projects.data[0]?.id });
    assert.equal(created.status, 201);
    const projectKey = (created.body as { key: string }).key;
    const scoped = await fetch(`${env.gw.url}/metrics`, { headers: { 'x-api-key': projectKey } });
    assert.equal(scoped.status, 403);
    const scopedBody = (await scoped.json()) as { error: { type: string; code: string } };
    assert.equal(scopedBody.error.type, 'permission_error');
    assert.equal(scopedBody.error.code, 'insufficient_scope');
  });

  test('a successful call counts once, with its time, tokens and cost', async () => {
    const labels = { ...ALPHA_CHAT, provider: 'openai', model: 'gpt-4o-mini', status_class: '2xx' };
    const before = await scrapeEnv();
    const res = await post(env, '/alpha/v1/chat/completions', chatBody(env.models.openai));
    assert.equal(res.status, 200);
    await res.text();
    const after = await scrapeEnv();

    const delta = (name: string, want = {}) => sampleSum(after, name, want) - sampleSum(before, name, want);
    const hDelta = (name: string) => histogramCount(after, name, ALPHA_CHAT) - histogramCount(before, name, ALPHA_CHAT);
    assert.equal(after.switchyard_requests_total.type, 'counter');
    assert.equal(delta('switchyard_requests_total', labels), 1);
    assert.equal(hDelta('switchyard_request_duration_seconds'), 1);
    assert.equal(hDelta('switchyard_time_to_first_byte_seconds'), 1);
    assert.equal(hDelta('switchyard_gateway_overhead_seconds'), 1);
    assert.ok(delta('switchyard_tokens_total', { direction: 'input' }) > 0);
    assert.ok(delta('switchyard_tokens_total', { direction: 'output' }) > 0);
    assert.ok(delta('switchyard_cost_usd_total') > 0);
    assert.equal(delta('switchyard_upstream_errors_total'), 0);
  });

  test("an upstream 429 counts as 4xx and as the provider's rate_limit error", async () => {
    const labels = { ...ALPHA_CHAT, provider: 'openai', model: 'gpt-4o-mini', status_class: '4xx' };
    const errors = { provider: 'openai', kind: 'rate_limit' };
    const before = await scrapeEnv();
    const res = await post(env, '/alpha/v1/chat/completions', chatBody(scripted(env.models.openai, 'fail-429')));
    assert.equal(res.status, 429);
    await res.text();
    const after = await scrapeEnv();

    assert.equal(
      sampleSum(after, 'switchyard_requests_total', labels) - sampleSum(before, 'switchyard_requests_total', labels),
      1,
    );
    const errorDelta =
      sampleSum(after, 'switchyard_upstream_errors_total', errors) -
      sampleSum(before, 'switchyard_upstream_errors_total', errors);
    assert.equal(errorDelta, 1);
  });

  test('a stream counts when it ends; its overhead is not measured', async () => {
    const labels = { ...BETA_MESSAGES, provider: 'anthropic', model: 'claude-3-5-haiku', status_class: '2xx' };
    const before = await scrapeEnv();
    const res = await post(env, '/beta/v1/messages', {
      ...chatBody(env.models.anthropic),
      max_tokens: 50,
      stream: true,
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /message_stop/);
    const after = await scrapeEnv();

    const hDelta = (name: string) =>
      histogramCount(after, name, BETA_MESSAGES) - histogramCount(before, name, BETA_MESSAGES);
    assert.equal(
      sampleSum(after, 'switchyard_requests_total', labels) - sampleSum(before, 'switchyard_requests_total', labels),
      1,
    );
    assert.equal(hDelta('switchyard_request_duration_seconds'), 1);
    assert.equal(hDelta('switchyard_time_to_first_byte_seconds'), 1);
    assert.equal(hDelta('switchyard_gateway_overhead_seconds'), 0);
  });

  test('models outside the catalog and @slugs are labelled other; label values stay bounded', async () => {
    const unknown = await post(env, '/alpha/v1/chat/completions', chatBody('openai/totally-new-model-x'));
    await unknown.text();
    const slug = await post(env, '/alpha/v1/chat/completions', chatBody('@no-such-config'));
    assert.equal(slug.status, 404);
    await slug.text();
    const m = await scrapeEnv();

    assert.ok(
      sampleSum(m, 'switchyard_requests_total', { ...ALPHA_CHAT, provider: 'openai', model: 'other' }) >= 1,
      'the unknown model is counted as other',
    );
    assert.equal(
      sampleSum(m, 'switchyard_requests_total', { provider: 'none', model: 'other', status_class: '4xx' }),
      1,
      'the unknown @slug is counted as other, with no provider',
    );
    for (const l of labelSets(m, 'switchyard_requests_total')) {
      assert.doesNotMatch(`${l.model}`, /fail-429|totally-new|@/, `unbounded model label ${l.model}`);
      assert.match(`${l.status_class}`, /^[245]xx$/);
    }
  });

  test('in-flight calls and the log queue are gauges; process metrics are there', async () => {
    const slow = post(env, '/alpha/v1/chat/completions', chatBody(scripted(env.models.openai, 'slow-600')));
    let during = 0;
    for (let i = 0; i < 20 && during === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      during = sampleSum(await scrapeEnv(), 'switchyard_in_flight_requests');
    }
    await (await slow).text();
    assert.equal(during, 1, 'the slow call is in flight while it waits');
    const m = await scrapeEnv();
    assert.equal(sampleSum(m, 'switchyard_in_flight_requests'), 0);
    assert.equal(m.switchyard_log_queue_depth.type, 'gauge');
    assert.ok(sampleSum(m, 'switchyard_log_queue_depth') >= 0);
    assert.ok(sampleSum(m, 'process_cpu_user_seconds_total') > 0);
    assert.ok(sampleSum(m, 'nodejs_heap_size_total_bytes') > 0);
  });
});

test('SWITCHYARD_METRICS_PUBLIC serves without a key, from a registry of its own gateway', async () => {
  const gw = await startGateway({ config: { metricsPublic: true } });
  try {
    const m = await scrape(gw.url);
    // Other gateways in this process served calls; this one served none.
    assert.deepEqual(labelSets(m, 'switchyard_requests_total'), []);
    assert.ok('process_resident_memory_bytes' in m);
  } finally {
    await gw.close();
  }
});

test('SWITCHYARD_METRICS_PUBLIC is a boolean, false by default', () => {
  assert.equal(loadConfig({}).metricsPublic, false);
  assert.equal(loadConfig({ SWITCHYARD_METRICS_PUBLIC: 'true' }).metricsPublic, true);
  assert.equal(loadConfig({ SWITCHYARD_METRICS_PUBLIC: 'FALSE' }).metricsPublic, false);
  assert.throws(() => loadConfig({ SWITCHYARD_METRICS_PUBLIC: 'sometimes' }), /SWITCHYARD_METRICS_PUBLIC/);
});

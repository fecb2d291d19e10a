// Budgets (402) and rate limits (429) end to end on the fake upstream, through the official SDKs
// where a user would use them: refusals in both families, the reservation bound under 64
// concurrent calls, threshold webhooks once each, RPM / TPM / concurrency, per-end-user budgets,
// the refusal named in the decision trace, and the metrics.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { startReceiver, verifyDelivery, waitFor } from '../webhooks/receiver.ts';

type Json = Record<string, unknown>;
let env: ProxyEnv;

async function project(name: string): Promise<{ id: string; key: string }> {
  const p = await api(env.gw, 'POST', '/manage/v1/projects', { name });
  assert.equal(p.status, 201, JSON.stringify(p.json));
  const id = (p.json as Json).id as string;
  const k = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: `${name} key`, project_id: id });
  return { id, key: (k.json as Json).key as string };
}

async function budget(body: Json): Promise<Json & { id: string }> {
  const r = await api(env.gw, 'POST', '/manage/v1/budgets', body);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json as Json & { id: string };
}

function chat(key: string, body: Json, headers: Record<string, string> = {}) {
  return fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

describe('budgets', () => {
  test('402 at the limit in both families, through the official SDKs', async () => {
    const p = await project('broke');
    await budget({ name: 'tiny', scope: { type: 'project', id: p.id }, period: 'daily', limit_usd: 0.000001 });
    const openai = new OpenAI({ apiKey: p.key, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
    const refused = await openai.chat.completions
      .create({ model: 'openai/gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(refused instanceof OpenAI.APIError, String(refused));
    assert.equal(refused.status, 402);
    assert.equal(refused.type, 'budget_exceeded');
    assert.equal(refused.code, 'budget_exceeded');
    assert.match(refused.message, /tiny/);

    const anthropic = new Anthropic({ apiKey: p.key, baseURL: `${env.gw.url}/beta`, maxRetries: 0 });
    const beta = await anthropic.messages
      .create({
        model: 'anthropic/claude-3-5-haiku-latest',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(beta instanceof Anthropic.APIError, String(beta));
    assert.equal(beta.status, 402);
    assert.equal((beta.error as { error: { type: string } }).error.type, 'permission_error');
  });

  test('a budget created right after calls counts their spend (their log rows are written first)', async () => {
    const p = await project('spent-before');
    for (let i = 0; i < 3; i++) assert.equal((await chat(p.key, {})).status, 200);
    const b = await budget({ name: 'late', scope: { type: 'project', id: p.id }, period: 'daily', limit_usd: 100 });
    const spent = (b.status as { spent_usd: number }).spent_usd;
    assert.ok(spent > 0, `spent ${spent}`);
  });

  test('64 concurrent calls against room for 10: exactly 10 admitted, no overspend', async () => {
    const p = await project('crowd');
    // Slow enough that all 64 are in flight before the first one ends, even on a loaded machine.
    const body = { model: 'openai/gpt-4o-mini-slow-2500', max_tokens: 1000 };
    // Reserved per call: what admission charges (the held amount shows while a call is in flight).
    const perCall = 0.00015 * (8 / 1000) + 0.0006; // 8 prompt tokens estimated, 1000 output at $0.60/M
    const limit = perCall * 10.5;
    const b = await budget({
      name: 'room for 10',
      scope: { type: 'project', id: p.id },
      period: 'daily',
      limit_usd: limit,
    });
    const results = await Promise.all(
      Array.from({ length: 64 }, () =>
        chat(p.key, body).then(async (r) => ({ status: r.status, body: await r.text() })),
      ),
    );
    const admitted = results.filter((r) => r.status === 200).length;
    const refusedCount = results.filter((r) => r.status === 402).length;
    assert.equal(admitted, 10, `admitted ${admitted}`);
    assert.equal(refusedCount, 54);
    const status = await waitFor('settled', async () => {
      const g = (await api(env.gw, 'GET', `/manage/v1/budgets/${b.id}`)).json as { status: Json };
      return g.status.reserved_usd === 0 ? g.status : undefined;
    });
    assert.ok((status.spent_usd as number) <= limit, `spent ${status.spent_usd} of ${limit}`);
    assert.ok((status.spent_usd as number) > 0);
  });

  test('threshold webhooks arrive once each (0.5, 0.8, 1.0), signed; budget.exceeded once', async () => {
    const rx = await startReceiver();
    try {
      const ep = await api(env.gw, 'POST', '/manage/v1/webhooks/endpoints', {
        url: rx.url,
        event_types: ['budget.threshold_reached', 'budget.exceeded'],
      });
      const secret = (ep.json as Json).signing_secret as string;
      const p = await project('alerts');
      // Alert-only: never refuses, so spend walks past every threshold call by call.
      const b = await budget({
        name: 'alerting',
        scope: { type: 'project', id: p.id },
        period: 'monthly',
        limit_usd: 0.00001,
        action: 'alert_only',
      });
      for (let i = 0; i < 12; i++) {
        // About $0.00000135 each (1 prompt token, 2 output tokens at gpt-4o-mini prices).
        const r = await chat(p.key, {});
        assert.equal(r.status, 200);
        await r.text();
      }
      await waitFor('four events', () => (rx.received.length >= 4 ? true : undefined));
      await new Promise((r) => setTimeout(r, 300));
      const events = rx.received.map((r) => verifyDelivery(secret, r));
      const thresholds = events.filter((e) => e.type === 'budget.threshold_reached').map((e) => e.data.threshold);
      assert.deepEqual(thresholds.sort(), [0.5, 0.8, 1]);
      assert.equal(events.filter((e) => e.type === 'budget.exceeded').length, 1);
      const first = events[0].data;
      assert.equal(first.budget_id, b.id);
      assert.equal(first.name, 'alerting');
      assert.deepEqual(first.scope, { type: 'project', id: p.id });
      assert.equal(first.limit_usd, 0.00001);
      assert.ok(typeof first.spent_usd === 'number' && typeof first.period_start === 'string');
    } finally {
      await rx.close();
    }
  });

  test('a budget created with spend already past its marks announces where it stands, once', async () => {
    const rx = await startReceiver();
    try {
      const ep = await api(env.gw, 'POST', '/manage/v1/webhooks/endpoints', {
        url: rx.url,
        event_types: ['budget.threshold_reached', 'budget.exceeded'],
      });
      const secret = (ep.json as Json).signing_secret as string;
      const p = await project('late budgets');
      for (let i = 0; i < 3; i++) {
        const r = await chat(p.key, {});
        assert.equal(r.status, 200);
        await r.text();
      }
      // Three calls spent about $0.000004: past half of the first limit, past the whole second.
      const scope = { type: 'project', id: p.id };
      const half = await budget({ name: 'half', scope, period: 'daily', limit_usd: 0.000006 });
      const over = await budget({ name: 'over', scope, period: 'daily', limit_usd: 0.000002 });
      await waitFor('three events', () => (rx.received.length >= 3 ? true : undefined));
      // Changing a budget rebuilds its spend again: nothing already announced is sent twice.
      await api(env.gw, 'PATCH', `/manage/v1/budgets/${over.id}`, { name: 'over, renamed' });
      await new Promise((r) => setTimeout(r, 500));
      const events = rx.received.map((r) => verifyDelivery(secret, r));
      const seen = events.map(
        (e) => `${e.data.budget_id === half.id ? 'half' : 'over'} ${e.type} ${e.data.threshold ?? ''}`,
      );
      assert.deepEqual(seen.sort(), [
        'half budget.threshold_reached 0.5',
        'over budget.exceeded ',
        'over budget.threshold_reached 1',
      ]);
      const blocked = await chat(p.key, {});
      assert.equal(blocked.status, 402);
    } finally {
      await rx.close();
    }
  });

  test('a per-end-user budget blocks one user while another continues', async () => {
    const p = await project('users');
    // Room for one call each: $0.0000018 reserved (8 input tokens estimated, max_tokens 1), $0.00000075 spent.
    // Limited to one model, so that the other tests' end users are not in it.
    await budget({
      name: 'per user',
      scope: { type: 'end_user' },
      period: 'daily',
      limit_usd: 0.000002,
      models: ['gpt-4o-mini-users'],
    });
    const asUser = (u: string) =>
      chat(p.key, { model: 'openai/gpt-4o-mini-users', max_tokens: 1 }, { 'x-svc-user-id': u }).then((r) => r.status);
    assert.equal(await asUser('alice'), 200);
    assert.equal(await asUser('alice'), 402);
    assert.equal(await asUser('bob'), 200);
    assert.equal(await asUser('bob'), 402);
    assert.equal(await asUser('carol'), 200);
  });

  test('the refusal is named in the decision trace, and counted in /metrics', async () => {
    const p = await project('traced');
    const b = await budget({
      name: 'zero room',
      scope: { type: 'project', id: p.id },
      period: 'daily',
      limit_usd: 1e-7,
    });
    const r = await chat(p.key, {});
    assert.equal(r.status, 402);
    const id = r.headers.get('x-svc-request-id');
    const trace = await waitFor('logged', async () => {
      const t = await api(env.gw, 'GET', `/manage/v1/logs/${id}/trace`);
      return t.status === 200 ? (t.json as Json) : undefined;
    });
    const refusedBy = (JSON.stringify(trace).match(/"refused_by":\{[^}]*\}/) ?? [''])[0];
    assert.match(refusedBy, new RegExp(b.id));
    const metrics = await fetch(`${env.gw.url}/metrics`, { headers: { authorization: `Bearer ${env.gw.adminKey}` } });
    const text = await metrics.text();
    assert.match(text, /switchyard_limit_refusals_total\{kind="budget"\} [1-9]/);
    assert.match(text, /switchyard_budget_spend_usd\{budget_id="budget_/);
  });
});

describe('rate limits', () => {
  async function keyWith(rate_limits: Json): Promise<string> {
    const r = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: 'limited', rate_limits });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    return (r.json as Json).key as string;
  }

  test('an RPM limit of 10 admits exactly 10 of a burst of 30; the 11th has retry-after >= 1', async () => {
    const key = await keyWith({ rpm: 10 });
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        chat(key, {}).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.text() })),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    assert.equal(ok.length, 10);
    assert.equal(refused.length, 20);
    for (const r of refused) {
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
      assert.equal(r.headers.get('x-ratelimit-limit-requests'), '10');
      assert.equal(r.headers.get('x-ratelimit-remaining-requests'), '0');
      const err = (JSON.parse(r.body) as { error: Json }).error;
      assert.deepEqual([err.type, err.code], ['rate_limit_error', 'rate_limit_exceeded']);
    }
    assert.equal(ok[0].headers.get('x-ratelimit-limit-requests'), '10');
    const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining-requests'))).sort((a, b) => a - b);
    assert.deepEqual(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // The official SDK sees a RateLimitError with the status and headers.
    const openai = new OpenAI({ apiKey: key, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
    const e = await openai.chat.completions
      .create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (x: unknown) => x,
      );
    assert.ok(e instanceof OpenAI.RateLimitError);
  });

  test('a TPM limit charges the estimate; a request bigger than the whole limit never passes', async () => {
    const key = await keyWith({ tpm: 1000 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await chat(key, { max_tokens: 300 });
      statuses.push(r.status);
      if (r.status === 200) assert.equal(r.headers.get('x-ratelimit-limit-tokens'), '1000');
      else assert.ok(Number(r.headers.get('retry-after')) >= 1);
      await r.text();
    }
    // ~308 tokens charged each: three fit in 1000 at once, the fourth waits (corrections after each
    // call give back most of the unused allowance, so it may pass too; the third must not fail).
    assert.deepEqual(statuses.slice(0, 3), [200, 200, 200]);
    const big = await chat(key, { max_tokens: 5000 });
    assert.equal(big.status, 429);
    assert.equal(big.headers.get('retry-after'), null);
    assert.match(await big.text(), /more tokens than this API key may use in a minute/);
  });

  test('a concurrency limit counts calls in flight, streams until their end', async () => {
    const key = await keyWith({ concurrency: 2 });
    const slow = { model: 'openai/gpt-4o-mini-slow-300' };
    const results = await Promise.all(Array.from({ length: 5 }, () => chat(key, slow).then((r) => r.status)));
    assert.deepEqual(results.sort(), [200, 200, 429, 429, 429]);
    // Slots are free again once the calls end.
    assert.equal((await chat(key, {})).status, 200);
    // A stream holds its slot until its last byte.
    const stream = await chat(key, { model: 'openai/gpt-4o-mini-long', stream: true });
    const second = await chat(key, { model: 'openai/gpt-4o-mini-long', stream: true });
    const third = await chat(key, {});
    assert.equal(third.status, 429);
    await stream.text();
    await second.text();
    assert.equal((await chat(key, {})).status, 200);
  });

  test('project and per-end-user limits from project settings; count_tokens counts as a request', async () => {
    const p = await project('settings');
    const patch = await api(env.gw, 'PATCH', `/manage/v1/projects/${p.id}`, {
      settings: { end_user_rate_limits: { rpm: 2 } },
    });
    assert.equal(patch.status, 200, JSON.stringify(patch.json));
    const as = (u: string) => chat(p.key, {}, { 'x-svc-user-id': u }).then((r) => r.status);
    assert.deepEqual([await as('u1'), await as('u1'), await as('u1'), await as('u2')], [200, 200, 429, 200]);
    await api(env.gw, 'PATCH', `/manage/v1/projects/${p.id}`, { settings: { rate_limits: { rpm: 1 } } });
    const count = () =>
      fetch(`${env.gw.url}/beta/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'x-api-key': p.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      }).then((r) => r.status);
    assert.deepEqual([await count(), await count()], [200, 429]);
  });
});

// Guardrails in the proxy, through both official SDKs, streamed and not: masked values reach the
// upstream as placeholders and come back restored; the log row, the cache entry and a replay hold
// only placeholders; a block refuses with 400 guardrail_blocked; shadow changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import {
  anthropic,
  ask,
  CARD,
  EMAIL,
  type Family,
  guardedProject,
  type Json,
  lastUpstreamBody,
  logRow,
  MODELS,
  NOT_A_CARD,
  openai,
  PROMPT,
  upstreamChatCount,
} from './pipeline-env.ts';

const PII = { type: 'pii', stage: 'both', action: 'mask', entities: ['email', 'credit_card'], restore: true };
const FAMILIES: Family[] = ['alpha', 'beta'];

describe('guardrails in the proxy', () => {
  let env: ProxyEnv;
  before(async () => {
    env = await startProxyEnv();
  });
  after(async () => {
    await env?.close();
  });

  for (const family of FAMILIES) {
    for (const stream of [false, true]) {
      test(`${family}${stream ? ' stream' : ''}: the upstream sees placeholders, the caller the originals`, async () => {
        const p = await guardedProject(env, [{ checks: [PII] }]);
        const a = await ask(env, p.key, family, PROMPT, stream);
        const sent = lastUpstreamBody(env);
        assert.match(sent, /\[EMAIL_1\]/);
        assert.match(sent, /\[CREDIT_CARD_1\]/);
        assert.ok(!sent.includes(EMAIL) && !sent.includes(CARD), sent);
        assert.ok(sent.includes(NOT_A_CARD), 'a Luhn-invalid number is not a card');
        // The fake echoes the last user message: restored, it is the prompt again.
        assert.equal(a.text, `Echo: ${PROMPT}`);
        assert.match(a.guardrails ?? '', /^input:guardrail_[0-9a-z]+:pii:mask;email=1;credit_card=1$/);
        assert.ok(a.requestId);
        const row = JSON.stringify(await logRow(env, a.requestId));
        assert.ok(!row.includes(EMAIL) && !row.includes(CARD), row);
        assert.match(row, /\[EMAIL_1\]/);
        assert.match(row, /"check_type":"pii"/, 'the trace lists the verdict');
      });
    }

    test(`${family}: without restore the caller reads the placeholders`, async () => {
      const p = await guardedProject(env, [{ checks: [{ ...PII, restore: false }] }]);
      const a = await ask(env, p.key, family, PROMPT, false);
      assert.equal(a.text, `Echo: Mail [EMAIL_1] about card [CREDIT_CARD_1], ref ${NOT_A_CARD}.`);
    });
  }

  test('the semantic cache keeps placeholders and a hit is restored for its caller', async () => {
    const p = await guardedProject(env, [{ checks: [PII] }], { semantic_cache: { enabled: true } });
    const first = await ask(env, p.key, 'alpha', PROMPT, false);
    assert.equal(first.text, `Echo: ${PROMPT}`);
    const db = env.gw.app.svc.db;
    let stored = '';
    for (let i = 0; i < 100 && stored === ''; i++) {
      const rows = await sql<Json>`select * from cache_entries where project_id = ${p.projectId}`.execute(db);
      if (rows.rows.length > 0) stored = JSON.stringify(rows.rows);
      else await new Promise((r) => setTimeout(r, 50));
    }
    assert.notEqual(stored, '', 'no cache entry was written');
    assert.ok(!stored.includes(EMAIL) && !stored.includes('4111 1111 1111 1111'), stored);
    assert.match(stored, /\[EMAIL_1\]/);
    const calls = upstreamChatCount(env);
    // Another address masks to the same placeholder: the same entry, restored with this call's value.
    const other = PROMPT.replace(EMAIL, 'max@example.org');
    const hit = await ask(env, p.key, 'alpha', other, false);
    assert.equal(upstreamChatCount(env), calls, 'answered from the cache');
    assert.equal(hit.text, `Echo: ${other}`);
    const third = PROMPT.replace(EMAIL, 'kim@example.net');
    const streamed = await ask(env, p.key, 'alpha', third, true);
    assert.equal(upstreamChatCount(env), calls, 'a stream answered from the cache too');
    assert.equal(streamed.text, `Echo: ${third}`);
  });

  test('a replay sends the logged (masked) request', async () => {
    const p = await guardedProject(env, [{ checks: [PII] }]);
    const a = await ask(env, p.key, 'beta', PROMPT, false);
    assert.ok(a.requestId);
    await logRow(env, a.requestId);
    const r = await api(env.gw, 'POST', `/manage/v1/logs/${a.requestId}/replay`, {});
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const sent = lastUpstreamBody(env);
    assert.match(sent, /\[EMAIL_1\]/);
    assert.ok(!sent.includes(EMAIL) && !sent.includes(CARD), sent);
  });

  test('a block regex refuses with 400 guardrail_blocked in both families, before any upstream call', async () => {
    const block = { type: 'regex', stage: 'input', action: 'block', patterns: ['\\bproject\\s+zeus\\b'], flags: 'i' };
    const p = await guardedProject(env, [{ name: 'no zeus', checks: [block] }]);
    const calls = upstreamChatCount(env);
    const prompt = 'Tell me about Project Zeus';
    await assert.rejects(
      openai(env, p.key).chat.completions.create({
        model: MODELS.alpha,
        messages: [{ role: 'user', content: prompt }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof OpenAI.BadRequestError);
        assert.equal(e.code, 'guardrail_blocked');
        assert.equal(e.type, 'invalid_request_error');
        assert.match(e.message, /no zeus/);
        assert.ok(!/zeus/i.test(e.message.replace('no zeus', '')), 'never the matched text');
        return true;
      },
    );
    await assert.rejects(
      anthropic(env, p.key).messages.create({
        model: MODELS.beta,
        max_tokens: 50,
        stream: true,
        messages: [{ role: 'user', content: prompt }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof Anthropic.BadRequestError);
        assert.equal(e.status, 400);
        assert.equal((e.error as { error: { type: string } }).error.type, 'invalid_request_error');
        assert.match(e.message, /guardrail policy 'no zeus', check 0 regex/);
        return true;
      },
    );
    assert.equal(upstreamChatCount(env), calls, 'nothing reached the upstream');
  });

  test('shadow mode changes nothing and records the verdict', async () => {
    const p = await guardedProject(env, [{ mode: 'shadow', checks: [PII] }]);
    for (const family of FAMILIES) {
      const a = await ask(env, p.key, family, PROMPT, false);
      const sent = lastUpstreamBody(env);
      assert.ok(sent.includes(EMAIL) && sent.includes(CARD), 'the upstream gets the prompt as sent');
      assert.equal(a.text, `Echo: ${PROMPT}`);
      assert.match(a.guardrails ?? '', /input:guardrail_[0-9a-z]+:pii:mask;email=1;credit_card=1;shadow/);
      assert.ok(a.requestId);
      const trace = await api(env.gw, 'GET', `/manage/v1/logs/${a.requestId}/trace`);
      const verdicts = ((trace.json as Json).decision_trace as Json).guardrails as Json[];
      assert.ok(verdicts.some((v) => v.mode === 'shadow' && v.applied === false && v.stage === 'input'));
    }
  });

  test('a routing_config policy applies to calls that name its @slug, and only to them', async () => {
    const rc = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
      slug: 'guarded-route',
      strategy: 'fallback',
      config: { models: [MODELS.alpha] },
    });
    assert.equal(rc.status, 201, JSON.stringify(rc.json));
    const p = await guardedProject(env, []);
    const policy = await api(env.gw, 'POST', '/manage/v1/guardrails', {
      name: 'route pii',
      scope: { type: 'routing_config', id: (rc.json as Json).id },
      checks: [{ ...PII, restore: false }],
    });
    assert.equal(policy.status, 201, JSON.stringify(policy.json));
    const routed = await ask(env, p.key, 'alpha', PROMPT, false, '@guarded-route');
    assert.match(routed.text, /\[EMAIL_1\]/);
    const direct = await ask(env, p.key, 'alpha', PROMPT, false);
    assert.equal(direct.text, `Echo: ${PROMPT}`);
    assert.equal(direct.guardrails, null, 'no policy applied');
  });

  test('a dry run lists the policies that would apply', async () => {
    const p = await guardedProject(env, [{ name: 'watch', checks: [PII] }]);
    const res = await fetch(`${env.gw.url}/alpha/v1/dry-run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS.alpha, messages: [{ role: 'user', content: PROMPT }] }),
    });
    const body = (await res.json()) as Json;
    assert.equal(res.status, 200, JSON.stringify(body));
    const listed = (body.dry_run as Json).guardrails as Json[];
    assert.deepEqual(
      listed.map((g) => g.name),
      ['watch'],
    );
  });
});

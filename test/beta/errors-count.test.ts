// Family beta errors (shape + SPEC status table), count_tokens (forwarded / local) and the models list.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { validateEventSequence } from './event-sequence.ts';
import { betaClient, betaPost, bodyOf, lastUpstream, logRow, upstreamCalls } from './helpers.ts';

let env: ProxyEnv;
let client: Anthropic;

before(async () => {
  env = await startProxyEnv();
  client = betaClient(env);
});
after(async () => {
  await env?.close();
});

const HAIKU = 'anthropic/claude-3-5-haiku-latest';

function assertBetaError(
  res: { status: number; json: Record<string, unknown> | null; text: string },
  status: number,
  type: string,
): void {
  assert.equal(res.status, status, res.text);
  assert.ok(res.json, res.text);
  assert.equal(res.json.type, 'error', res.text);
  const e = res.json.error as Record<string, unknown>;
  assert.equal(e.type, type, res.text);
  assert.equal(typeof e.message, 'string');
  assert.ok(String(e.message).length > 0);
}

const hello = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 20,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

describe('beta errors', () => {
  test('400 invalid_request_error: max_tokens 0, missing max_tokens, missing messages, unknown model', async () => {
    assertBetaError(await betaPost(env, '/v1/messages', hello(HAIKU, { max_tokens: 0 })), 400, 'invalid_request_error');
    const { max_tokens: _m, ...noMax } = hello(HAIKU);
    assertBetaError(await betaPost(env, '/v1/messages', noMax), 400, 'invalid_request_error');
    assertBetaError(
      await betaPost(env, '/v1/messages', { model: HAIKU, max_tokens: 10 }),
      400,
      'invalid_request_error',
    );
    const unknown = await betaPost(env, '/v1/messages', hello('nosuchvendor/some-model'));
    assert.ok(unknown.status === 400 || unknown.status === 404, unknown.text);
    assertBetaError(unknown, unknown.status, unknown.status === 400 ? 'invalid_request_error' : 'not_found_error');
  });

  test('the SDK surfaces a 400 as BadRequestError', async () => {
    await assert.rejects(
      client.messages.create({ model: HAIKU, max_tokens: 0, messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof Anthropic.BadRequestError && e.status === 400,
    );
  });

  test('401 authentication_error: no key, wrong x-api-key, wrong Bearer', async () => {
    assertBetaError(await betaPost(env, '/v1/messages', hello(HAIKU), {}), 401, 'authentication_error');
    assertBetaError(
      await betaPost(env, '/v1/messages', hello(HAIKU), { 'x-api-key': 'sk-wrong-key' }),
      401,
      'authentication_error',
    );
    assertBetaError(
      await betaPost(env, '/v1/messages', hello(HAIKU), { authorization: 'Bearer sk-wrong-key' }),
      401,
      'authentication_error',
    );
    const ok = await betaPost(env, '/v1/messages', hello(HAIKU), { authorization: `Bearer ${env.gw.adminKey}` });
    assert.equal(ok.status, 200, ok.text);
  });

  test('404 not_found_error for an unknown route under /beta', async () => {
    assertBetaError(await betaPost(env, '/v1/nothing-here', {}), 404, 'not_found_error');
  });

  for (const vendor of ['openai', 'anthropic', 'google', 'bedrock', 'bedrock-anthropic', 'together']) {
    test(`${vendor}: upstream 429 -> rate_limit_error, 500 -> api_error, 400 -> invalid_request_error`, async () => {
      const model = env.models[vendor];
      const r429 = await betaPost(env, '/v1/messages', hello(`${model}-fail-429`));
      assertBetaError(r429, 429, 'rate_limit_error');
      const r500 = await betaPost(env, '/v1/messages', hello(`${model}-fail-500`));
      assert.ok(r500.status >= 500 && r500.status < 600, r500.text);
      assertBetaError(r500, r500.status, 'api_error');
      const r400 = await betaPost(env, '/v1/messages', hello(`${model}-fail-400`));
      assertBetaError(r400, 400, 'invalid_request_error');
      const row = await logRow(env, String(r429.headers.get('x-svc-request-id')));
      assert.equal(row.requestType, 'message');
      assert.equal(row.statusCode, 429);
    });
  }

  test('the SDK surfaces an upstream 429 as RateLimitError', async () => {
    await assert.rejects(
      client.messages.create({
        model: `${env.models.openai}-fail-429`,
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
      (e: unknown) => e instanceof Anthropic.RateLimitError,
    );
  });

  for (const vendor of ['openai', 'anthropic', 'google', 'bedrock']) {
    test(`${vendor}: mid-stream failure -> event: error`, async () => {
      const res = await betaPost(env, '/v1/messages', {
        ...hello(`${env.models[vendor]}-midstream-error`),
        stream: true,
      });
      assert.equal(res.status, 200);
      const s = validateEventSequence(res.text, { allowError: true });
      assert.ok(s.error, `stream ended with an error event: ${res.text}`);
      assert.equal(s.events[0], 'message_start');
    });
  }
});

describe('beta count_tokens and models', () => {
  test('anthropic: forwarded to the upstream', async () => {
    const body = {
      model: HAIKU,
      system: 'count me',
      messages: [{ role: 'user' as const, content: 'how many tokens is this?' }],
    };
    const res = await betaPost(env, '/v1/messages/count_tokens', body);
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.headers.get('x-svc-token-count-source'), 'local');
    const sent = lastUpstream(env, '/anthropic/v1/messages/count_tokens');
    assert.equal(bodyOf(sent).model, 'claude-3-5-haiku-latest');
    // The fake counts 1 token per 4 chars per segment: "count me" (2) + the user text (6).
    assert.deepEqual(res.json, { input_tokens: 8 });
    const viaSdk = await client.messages.countTokens(body);
    assert.equal(viaSdk.input_tokens, 8);
  });

  test('anthropic: X-Svc-Provider-Key is used upstream', async () => {
    const before = upstreamCalls(env, '/count_tokens').length;
    const res = await betaPost(
      env,
      '/v1/messages/count_tokens',
      { model: HAIKU, messages: [{ role: 'user', content: 'byok' }] },
      { 'x-api-key': env.gw.adminKey, 'x-svc-provider-key': 'sk-ant-caller-key-9999' },
    );
    assert.equal(res.status, 200, res.text);
    const calls = upstreamCalls(env, '/count_tokens');
    assert.equal(calls.length, before + 1);
    assert.ok(calls[calls.length - 1].headers['x-api-key']?.endsWith('9999'));
  });

  for (const vendor of ['openai', 'google', 'bedrock']) {
    test(`${vendor}: answered locally and says so`, async () => {
      const before = env.fake.requests().length;
      const res = await betaPost(env, '/v1/messages/count_tokens', {
        model: env.models[vendor],
        messages: [{ role: 'user', content: 'count these words locally please' }],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('x-svc-token-count-source'), 'local');
      const n = (res.json as { input_tokens: unknown }).input_tokens;
      assert.ok(typeof n === 'number' && n > 0);
      assert.equal(env.fake.requests().length, before, 'no upstream call');
    });
  }

  test('count_tokens errors use the beta shape', async () => {
    assertBetaError(await betaPost(env, '/v1/messages/count_tokens', { model: HAIKU }), 400, 'invalid_request_error');
    assertBetaError(
      await betaPost(env, '/v1/messages/count_tokens', { model: HAIKU, messages: [] }, {}),
      401,
      'authentication_error',
    );
  });

  test('GET /beta/v1/models', async () => {
    const res = await fetch(`${env.gw.url}/beta/v1/models`, { headers: { 'x-api-key': env.gw.adminKey } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { data: [], has_more: false });
  });
});

// Family beta with `@slug` routing configs (fallback across native and translated vendors) and the
// caller-side bookkeeping: metadata and X-Svc-* headers land in the log row, never upstream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { validateEventSequence } from './event-sequence.ts';
import { betaClient, betaPost, bodyOf, lastUpstream, logRow } from './helpers.ts';

let env: ProxyEnv;
let client: Anthropic;

async function routingConfig(slug: string, models: string[]): Promise<void> {
  const r = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
    name: `beta ${slug}`,
    slug,
    strategy: 'fallback',
    config: { attempts: models.map((model) => ({ model, timeout_ms: 5000 })), retry_on: ['429', '5xx', 'timeout'] },
  });
  assert.equal(r.status, 201, JSON.stringify(r.json));
}

before(async () => {
  env = await startProxyEnv();
  client = betaClient(env);
  await routingConfig('beta-to-native', ['openai/gpt-4o-mini-fail-500', 'anthropic/claude-3-5-haiku-latest']);
  await routingConfig('beta-to-openai', ['anthropic/claude-3-5-haiku-latest-fail-429', 'openai/gpt-4o-mini']);
});
after(async () => {
  await env?.close();
});

describe('beta through routing configs', () => {
  test('@slug falls back from a failing translated vendor to the native one', async () => {
    const { data, response } = await client.messages
      .create({ model: '@beta-to-native', max_tokens: 50, messages: [{ role: 'user', content: 'route me' }] })
      .withResponse();
    assert.equal(data.content[0].type === 'text' && data.content[0].text, 'Echo: route me');
    assert.equal(response.headers.get('x-svc-provider-used'), 'anthropic');
    assert.equal(response.headers.get('x-svc-config'), 'beta-to-native');
    assert.equal(bodyOf(lastUpstream(env, '/anthropic/v1/messages')).model, 'claude-3-5-haiku-latest');
  });

  test('@slug falls back from the native vendor to a translated one, JSON and stream', async () => {
    const msg = await client.messages.create({
      model: '@beta-to-openai',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'other way' }],
    });
    assert.equal(msg.type, 'message');
    assert.equal(msg.content[0].type === 'text' && msg.content[0].text, 'Echo: other way');
    const res = await betaPost(env, '/v1/messages', {
      model: '@beta-to-openai',
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'other way streamed' }],
    });
    assert.equal(res.headers.get('x-svc-provider-used'), 'openai');
    assert.deepEqual(validateEventSequence(res.text).blocks, ['text']);
  });
});

describe('beta metadata and X-Svc-* headers', () => {
  test('metadata user_id / trace_id / conversation_id go to the log row and not upstream', async () => {
    const res = await betaPost(env, '/v1/messages', {
      model: 'openai/gpt-4o-mini',
      max_tokens: 20,
      metadata: { user_id: 'user-7', trace_id: 'trace-7', conversation_id: 'conv-7' },
      messages: [{ role: 'user', content: 'meta' }],
    });
    assert.equal(res.status, 200, res.text);
    const row = await logRow(env, String(res.headers.get('x-svc-request-id')));
    assert.equal(row.requestType, 'message');
    assert.equal(row.traceId, 'trace-7');
    assert.equal(row.conversationId, 'conv-7');
    assert.equal(row.endUser, 'user-7');
    const raw = JSON.stringify(bodyOf(lastUpstream(env, '/openai/v1/chat/completions')));
    assert.ok(!raw.includes('trace-7') && !raw.includes('conv-7'), raw);
  });

  test('X-Svc-User-Id, -Trace-Id, -Conversation-Id and -User-Tags are honoured as in alpha', async () => {
    const res = await betaPost(
      env,
      '/v1/messages',
      { model: 'anthropic/claude-3-5-haiku-latest', max_tokens: 20, messages: [{ role: 'user', content: 'hdrs' }] },
      {
        'x-api-key': env.gw.adminKey,
        'x-svc-user-id': 'hdr-user',
        'x-svc-trace-id': 'hdr-trace',
        'x-svc-conversation-id': 'hdr-conv',
        'x-svc-user-tags': 'team=beta,env=test',
      },
    );
    assert.equal(res.status, 200, res.text);
    const row = await logRow(env, String(res.headers.get('x-svc-request-id')));
    assert.equal(row.endUser, 'hdr-user');
    assert.equal(row.traceId, 'hdr-trace');
    assert.equal(row.conversationId, 'hdr-conv');
    assert.deepEqual(row.tags, { team: 'beta', env: 'test' });
    const up = lastUpstream(env, '/anthropic/v1/messages');
    assert.deepEqual(
      Object.keys(up.headers).filter((h) => h.startsWith('x-svc-')),
      [],
    );
  });
});

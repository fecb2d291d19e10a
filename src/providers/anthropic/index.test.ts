import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatRequest, text, user } from '../../ir/test-kit.ts';
import type { ChatRequest } from '../../ir/types.ts';
import type { Target } from '../types.ts';
import { anthropicAdapter } from './index.ts';

const req: ChatRequest = chatRequest('ignored', { messages: [user(text('hi'))], params: { maxTokens: 10 } });

test('anthropic: x-api-key, default version, family headers win, base URL override', async () => {
  const target: Target = {
    vendor: 'anthropic',
    model: 'claude-haiku-4-5',
    credential: { apiKey: 'sk-ant', baseUrl: 'http://127.0.0.1:1/anthropic/' },
    headers: { 'Anthropic-Beta': 'interleaved-thinking-2025-05-14' },
  };
  const spec = await anthropicAdapter.chatRequest(req, target);
  assert.equal(spec.url, 'http://127.0.0.1:1/anthropic/v1/messages');
  assert.equal(spec.headers['x-api-key'], 'sk-ant');
  assert.equal(spec.headers['anthropic-version'], '2023-06-01');
  assert.equal(spec.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14');
  assert.equal(JSON.parse(String(spec.body)).model, 'claude-haiku-4-5');
  const pinned = await anthropicAdapter.rawChatRequest(
    '{"x":1}',
    { ...target, headers: { 'anthropic-version': 'v2' } },
    true,
  );
  assert.equal(pinned.headers['anthropic-version'], 'v2');
  assert.equal(pinned.headers.accept, 'text/event-stream');
  assert.equal(pinned.body, '{"x":1}');
  const verify = await anthropicAdapter.verifyKeyRequest({ apiKey: 'k' });
  assert.equal(verify.method, 'GET');
  assert.equal(verify.url, 'https://api.anthropic.com/v1/models');
});

test('errors: anthropic shape, 529 overloaded retryable, retry-after', () => {
  const body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}';
  assert.deepEqual(anthropicAdapter.decodeError(529, body, {}), {
    status: 529,
    kind: 'overloaded',
    message: 'Overloaded',
    code: 'overloaded_error',
    retryable: true,
    raw: body,
  });
  const auth = anthropicAdapter.decodeError(
    401,
    '{"type":"error","error":{"type":"authentication_error","message":"bad key"}}',
    {},
  );
  assert.equal(auth.kind, 'authentication');
  assert.equal(auth.retryable, false);
  const limited = anthropicAdapter.decodeError(
    429,
    '{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}',
    {
      'retry-after': '7',
    },
  );
  assert.equal(limited.retryAfter, '7');
});

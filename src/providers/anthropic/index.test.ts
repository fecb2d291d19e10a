import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest } from '../../ir/types.ts';
import type { Target } from '../types.ts';
import { anthropicAdapter, bedrockAnthropicAdapter } from './index.ts';

const req: ChatRequest = {
  model: 'ignored',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  params: { maxTokens: 10 },
  stream: false,
};

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

test('bedrock: invoke URL with encoded model id, body without model/stream, version and betas in body, signed', async () => {
  const target: Target = {
    vendor: 'bedrock',
    model: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
    credential: { apiKey: 'AKIDEXAMPLE::secret::eu-west-1' },
    headers: { 'anthropic-beta': 'a-1, b-2', 'anthropic-version': '2023-06-01' },
  };
  const spec = await bedrockAnthropicAdapter.chatRequest({ ...req, stream: true }, target);
  assert.equal(
    spec.url,
    'https://bedrock-runtime.eu-west-1.amazonaws.com/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke-with-response-stream',
  );
  const body = JSON.parse(String(spec.body));
  assert.equal(body.model, undefined);
  assert.equal(body.stream, undefined);
  assert.equal(body.anthropic_version, 'bedrock-2023-05-31');
  assert.deepEqual(body.anthropic_beta, ['a-1', 'b-2']);
  assert.equal(body.max_tokens, 10);
  assert.match(
    spec.headers.authorization ?? '',
    /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/bedrock\//,
  );
  assert.equal(spec.headers['anthropic-beta'], undefined);
  assert.equal(spec.headers['anthropic-version'], undefined);
});

test('bedrock raw pass-through: same body edits on the JSON text; bearer keys', async () => {
  const target: Target = {
    vendor: 'bedrock',
    model: 'anthropic.claude-sonnet-4-20250514-v1:0',
    credential: { apiKey: 'bedrock-api-key', baseUrl: 'http://127.0.0.1:1/bedrock' },
  };
  const raw = JSON.stringify({ model: 'x', stream: false, max_tokens: 5, messages: [], custom_field: { a: 1 } });
  const spec = await bedrockAnthropicAdapter.rawChatRequest(raw, target, false);
  assert.equal(spec.url, 'http://127.0.0.1:1/bedrock/model/anthropic.claude-sonnet-4-20250514-v1%3A0/invoke');
  assert.deepEqual(JSON.parse(String(spec.body)), {
    max_tokens: 5,
    messages: [],
    custom_field: { a: 1 },
    anthropic_version: 'bedrock-2023-05-31',
  });
  assert.equal(spec.headers.authorization, 'Bearer bedrock-api-key');
});

test('errors: anthropic shape, 529 overloaded retryable, AWS shape with x-amzn-ErrorType', () => {
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
  const aws = bedrockAnthropicAdapter.decodeError(429, '{"message":"Too many tokens"}', {
    'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/',
  });
  assert.equal(aws.kind, 'rate_limit');
  assert.equal(aws.code, 'ThrottlingException');
  assert.equal(aws.message, 'Too many tokens');
  assert.equal(aws.retryable, true);
  const denied = bedrockAnthropicAdapter.decodeError(403, '{"Message":"no access"}', {
    'X-Amzn-ErrorType': 'AccessDeniedException',
  });
  assert.equal(denied.kind, 'permission');
  assert.equal(denied.message, 'no access');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatRequest, text, user } from '../../ir/test-kit.ts';
import type { ChatRequest } from '../../ir/types.ts';
import { fixtureJson } from '../shared/fixtures.ts';
import type { Target } from '../types.ts';
import { openaiCompatibleAdapter } from './index.ts';

const req: ChatRequest = chatRequest('ignored', { messages: [user(text('hi'))], params: { topK: 3 }, stream: true });

test('adapters are cached singletons', () => {
  assert.equal(openaiCompatibleAdapter('openai'), openaiCompatibleAdapter('openai'));
  assert.notEqual(openaiCompatibleAdapter('openai'), openaiCompatibleAdapter('together'));
});

test('default base URLs and bearer auth; target model wins; top_k only where accepted', async () => {
  const cases = [
    ['openai', 'https://api.openai.com/v1/chat/completions', false],
    ['together', 'https://api.together.xyz/v1/chat/completions', true],
    ['fireworks', 'https://api.fireworks.ai/inference/v1/chat/completions', true],
  ] as const;
  for (const [vendor, url, topK] of cases) {
    const target: Target = { vendor, model: 'm1', credential: { apiKey: 'sk-1' } };
    const spec = await openaiCompatibleAdapter(vendor).chatRequest(req, target);
    assert.equal(spec.url, url);
    assert.equal(spec.headers.authorization, 'Bearer sk-1');
    assert.equal(spec.headers.accept, 'text/event-stream');
    const body = JSON.parse(String(spec.body));
    assert.equal(body.model, 'm1');
    assert.equal(body.top_k, topK ? 3 : undefined);
  }
});

test('azure: deployment URL, api-key header, base URL required, trailing slash stripped', async () => {
  const a = openaiCompatibleAdapter('azure-openai');
  const target: Target = {
    vendor: 'azure-openai',
    model: 'my-gpt4o',
    credential: { apiKey: 'az', baseUrl: 'https://res.openai.azure.com/' },
  };
  const spec = await a.chatRequest(req, target);
  assert.equal(
    spec.url,
    'https://res.openai.azure.com/openai/deployments/my-gpt4o/chat/completions?api-version=2024-10-21',
  );
  assert.equal(spec.headers['api-key'], 'az');
  assert.equal(spec.headers.authorization, undefined);
  const [emb] = await a.embeddingRequests({ model: 'e', input: ['x'] }, { ...target, model: 'emb' });
  assert.equal(emb.url, 'https://res.openai.azure.com/openai/deployments/emb/embeddings?api-version=2024-10-21');
  const verify = await a.verifyKeyRequest(target.credential);
  assert.equal(verify.url, 'https://res.openai.azure.com/openai/models?api-version=2024-10-21');
  await assert.rejects(a.chatRequest(req, { ...target, credential: { apiKey: 'az' } }));
});

test('raw pass-through keeps the body byte-identical; credential base URL overrides', async () => {
  const raw = '{"model":"m","messages":[],"logprobs":true,  "x":1}';
  const spec = await openaiCompatibleAdapter('openai').rawChatRequest(
    raw,
    { vendor: 'openai', model: 'm', credential: { apiKey: 'k', baseUrl: 'http://127.0.0.1:9/openai/v1/' } },
    false,
  );
  assert.equal(spec.body, raw);
  assert.equal(spec.url, 'http://127.0.0.1:9/openai/v1/chat/completions');
  assert.equal(spec.headers.accept, 'application/json');
});

test('verifyKey lists models', async () => {
  const spec = await openaiCompatibleAdapter('fireworks').verifyKeyRequest({ apiKey: 'fw' });
  assert.deepEqual(spec, {
    method: 'GET',
    url: 'https://api.fireworks.ai/inference/v1/models',
    headers: { authorization: 'Bearer fw' },
  });
});

test('embeddings: floats requested, dimensions only where supported, vectors ordered by index', async () => {
  const openai = openaiCompatibleAdapter('openai');
  assert.equal(openai.supportsDimensions('text-embedding-3-small'), true);
  assert.equal(openai.supportsDimensions('text-embedding-ada-002'), false);
  assert.equal(openaiCompatibleAdapter('together').supportsDimensions('text-embedding-3-small'), false);
  const target: Target = { vendor: 'openai', model: 'text-embedding-3-small', credential: { apiKey: 'k' } };
  const specs = await openai.embeddingRequests({ model: 'x', input: ['a', 'b'], dimensions: 3, user: 'u' }, target);
  assert.equal(specs.length, 1);
  const [spec] = specs;
  assert.equal(spec.url, 'https://api.openai.com/v1/embeddings');
  assert.deepEqual(JSON.parse(String(spec.body)), {
    model: 'text-embedding-3-small',
    input: ['a', 'b'],
    encoding_format: 'float',
    dimensions: 3,
    user: 'u',
  });
  const [ada] = await openai.embeddingRequests(
    { model: 'x', input: ['a'], dimensions: 3 },
    { ...target, model: 'ada' },
  );
  assert.equal(JSON.parse(String(ada.body)).dimensions, undefined);
  const res = openai.decodeEmbeddingResponses(
    [fixtureJson('openai-compatible', 'embeddings.json')],
    { model: 'x', input: ['a', 'b'] },
    target,
  );
  assert.deepEqual(res, {
    model: 'text-embedding-3-small',
    vectors: [
      [0.1, 0.2, 0.3],
      [0.5, -0.5, 0.25],
    ],
    usage: { input: 8 },
  });
});

test('embeddings: a base64 answer is decoded as float32 little-endian', () => {
  const floats = new Float32Array([0.5, -2]);
  const b64 = Buffer.from(floats.buffer).toString('base64');
  const res = openaiCompatibleAdapter('openai').decodeEmbeddingResponses(
    [{ data: [{ index: 0, embedding: b64 }], usage: { prompt_tokens: 1 } }],
    { model: 'm', input: ['a'] },
    { vendor: 'openai', model: 'm', credential: { apiKey: 'k' } },
  );
  assert.deepEqual(res.vectors, [[0.5, -2]]);
});

test('error shapes: openai, together string, fireworks detail and fault; retry headers', () => {
  const a = openaiCompatibleAdapter('openai');
  const body = '{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}';
  assert.deepEqual(a.decodeError(429, body, { 'retry-after-ms': '1500' }), {
    status: 429,
    kind: 'rate_limit',
    message: 'Rate limit reached',
    code: 'rate_limit_exceeded',
    param: null,
    retryable: true,
    retryAfter: '1.5',
    raw: body,
  });
  const together = a.decodeError(400, '{"error":"model not found"}', {});
  assert.equal(together.message, 'model not found');
  assert.equal(together.kind, 'invalid_request');
  assert.equal(together.retryable, false);
  assert.equal(a.decodeError(401, '{"detail":"Invalid API key"}', {}).message, 'Invalid API key');
  const fault = a.decodeError(503, '{"fault":{"faultstring":"no healthy upstream","detail":{"errorcode":"x"}}}', {
    'Retry-After': '3',
  });
  assert.equal(fault.message, 'no healthy upstream');
  assert.equal(fault.kind, 'overloaded');
  assert.equal(fault.retryable, true);
  assert.equal(fault.retryAfter, '3');
  const html = a.decodeError(502, '<html>bad gateway</html>', {});
  assert.equal(html.message, 'upstream returned HTTP 502');
  assert.equal(html.kind, 'server');
  assert.equal(a.decodeError(500, '{}', { 'x-should-retry': 'false' }).retryable, false);
});

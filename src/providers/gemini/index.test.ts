import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatRequest } from '../../ir/test-kit.ts';
import { fixtureJson } from '../shared/fixtures.ts';
import type { Target } from '../types.ts';
import { geminiAdapter } from './index.ts';

const target = (over: Partial<Target> = {}): Target => ({
  vendor: 'google',
  model: 'gemini-2.5-flash',
  credential: { apiKey: 'sk-g', baseUrl: 'http://127.0.0.1:9/google/' },
  ...over,
});

describe('geminiAdapter requests', () => {
  it('builds generateContent and SSE stream URLs with the key header', async () => {
    const req = chatRequest('gemini-2.5-flash');
    const plain = await geminiAdapter.chatRequest(req, target());
    assert.equal(plain.url, 'http://127.0.0.1:9/google/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(plain.headers['x-goog-api-key'], 'sk-g');
    assert.equal(plain.method, 'POST');
    const streamed = await geminiAdapter.chatRequest({ ...req, stream: true }, target());
    assert.equal(
      streamed.url,
      'http://127.0.0.1:9/google/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    const raw = await geminiAdapter.rawChatRequest('{"contents":[]}', target(), true);
    assert.equal(raw.body, '{"contents":[]}');
    assert.equal(raw.url, streamed.url);
  });

  it('defaults to the public base URL and lists models to verify a key', async () => {
    const spec = await geminiAdapter.verifyKeyRequest({ apiKey: 'k' });
    assert.equal(spec.method, 'GET');
    assert.equal(spec.url, 'https://generativelanguage.googleapis.com/v1beta/models?pageSize=1');
    assert.equal(spec.headers['x-goog-api-key'], 'k');
  });
});

describe('geminiAdapter embeddings', () => {
  it('sends batchEmbedContents with outputDimensionality only where supported', async () => {
    assert.equal(geminiAdapter.supportsDimensions('gemini-embedding-001'), true);
    assert.equal(geminiAdapter.supportsDimensions('text-embedding-004'), true);
    assert.equal(geminiAdapter.supportsDimensions('embedding-001'), false);
    const [spec, ...more] = await geminiAdapter.embeddingRequests(
      { model: 'gemini-embedding-001', input: ['a', 'b'], dimensions: 768 },
      target({ model: 'gemini-embedding-001' }),
    );
    assert.equal(more.length, 0, 'one batchEmbedContents call for every input');
    assert.equal(spec.url, 'http://127.0.0.1:9/google/v1beta/models/gemini-embedding-001:batchEmbedContents');
    assert.deepEqual(JSON.parse(String(spec.body)), {
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a' }] }, outputDimensionality: 768 },
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'b' }] }, outputDimensionality: 768 },
      ],
    });
    const [fixed] = await geminiAdapter.embeddingRequests(
      { model: 'embedding-001', input: ['a'], dimensions: 3 },
      target({ model: 'embedding-001' }),
    );
    assert.deepEqual(JSON.parse(String(fixed.body)), {
      requests: [{ model: 'models/embedding-001', content: { parts: [{ text: 'a' }] } }],
    });
  });

  it('decodes vectors in order', () => {
    const body = fixtureJson('gemini', 'batch-embed.json');
    const res = geminiAdapter.decodeEmbeddingResponses(
      [body],
      { model: 'gemini-embedding-001', input: ['abcd', 'efgh1'] },
      target({ model: 'gemini-embedding-001' }),
    );
    assert.deepEqual(res, {
      model: 'gemini-embedding-001',
      vectors: [
        [0.1, -0.2, 0.3],
        [0.4, 0.5, -0.6],
      ],
      usage: { input: 3 },
    });
  });
});

describe('geminiAdapter.decodeError', () => {
  const body = (code: number, status: string, extra = {}) =>
    JSON.stringify({ error: { code, message: `m-${status}`, status, ...extra } });

  it('maps Google status strings', () => {
    const cases: Array<[number, string, string, boolean]> = [
      [400, 'INVALID_ARGUMENT', 'invalid_request', false],
      [403, 'PERMISSION_DENIED', 'permission', false],
      [401, 'UNAUTHENTICATED', 'authentication', false],
      [404, 'NOT_FOUND', 'not_found', false],
      [429, 'RESOURCE_EXHAUSTED', 'rate_limit', true],
      [500, 'INTERNAL', 'server', true],
      [503, 'UNAVAILABLE', 'overloaded', true],
      [504, 'DEADLINE_EXCEEDED', 'timeout', true],
    ];
    for (const [code, status, kind, retryable] of cases) {
      const info = geminiAdapter.decodeError(code, body(code, status), {});
      assert.deepEqual(
        [info.status, info.kind, info.retryable, info.message, info.code],
        [code, kind, retryable, `m-${status}`, status],
      );
      assert.equal(info.raw, body(code, status));
    }
  });

  it('treats API_KEY_INVALID as an authentication failure and reads retry headers', () => {
    const text = body(400, 'INVALID_ARGUMENT', { details: [{ '@type': 'x', reason: 'API_KEY_INVALID' }] });
    assert.equal(geminiAdapter.decodeError(400, text, {}).kind, 'authentication');
    assert.equal(
      geminiAdapter.decodeError(429, body(429, 'RESOURCE_EXHAUSTED'), { 'retry-after': '7' }).retryAfter,
      '7',
    );
    assert.equal(
      geminiAdapter.decodeError(429, body(429, 'RESOURCE_EXHAUSTED'), { 'retry-after-ms': '1500' }).retryAfter,
      '1.5',
    );
  });

  it('survives non-JSON and array-wrapped bodies', () => {
    const html = geminiAdapter.decodeError(502, '<html>bad gateway</html>', {});
    // An HTML error page is kept in `raw` but is no message for the caller.
    assert.deepEqual([html.kind, html.retryable, html.message], ['server', true, 'upstream returned HTTP 502']);
    const wrapped = geminiAdapter.decodeError(404, `[${body(404, 'NOT_FOUND')}]`, {});
    assert.deepEqual([wrapped.kind, wrapped.message], ['not_found', 'm-NOT_FOUND']);
  });
});

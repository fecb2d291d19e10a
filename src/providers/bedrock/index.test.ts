import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatRequest, text, user } from '../../ir/test-kit.ts';
import type { ChatRequest } from '../../ir/types.ts';
import { fixtureJson } from '../shared/fixtures.ts';
import type { Target } from '../types.ts';
import { bedrockAnthropicAdapter, bedrockConverseAdapter, bedrockEmbeddingAdapter } from './index.ts';

const { embeddingRequests, decodeEmbeddingResponses } = bedrockEmbeddingAdapter;

const fixture = (name: string): unknown => fixtureJson('bedrock', name);

const target = (model: string, baseUrl: string | null = 'http://127.0.0.1:9/bedrock'): Target => ({
  vendor: 'bedrock',
  model,
  credential: { apiKey: 'AKIDTEST::test-secret::eu-west-1', baseUrl },
});

const chat = { model: 'x', system: [], messages: [], tools: [], params: {}, stream: false };

describe('bedrockConverseAdapter requests', () => {
  it('posts signed Converse / ConverseStream calls with the model id encoded as one segment', async () => {
    const t = target('meta.llama3-1-70b-instruct-v1:0');
    const spec = await bedrockConverseAdapter.chatRequest(chat, t);
    assert.equal(spec.url, 'http://127.0.0.1:9/bedrock/model/meta.llama3-1-70b-instruct-v1%3A0/converse');
    assert.match(
      spec.headers.authorization,
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-west-1\/bedrock\/aws4_request/,
    );
    assert.equal(spec.headers.host, '127.0.0.1:9');
    const stream = await bedrockConverseAdapter.chatRequest({ ...chat, stream: true }, t);
    assert.equal(stream.url, 'http://127.0.0.1:9/bedrock/model/meta.llama3-1-70b-instruct-v1%3A0/converse-stream');
    assert.equal(stream.headers.accept, 'application/vnd.amazon.eventstream');
    const raw = await bedrockConverseAdapter.rawChatRequest('{"messages":[]}', t, false);
    assert.equal(raw.body, '{"messages":[]}');
  });

  it('uses the regional host by default and encodes ARNs', async () => {
    const arn = 'arn:aws:bedrock:eu-west-1:123:inference-profile/eu.amazon.nova-lite-v1:0';
    const spec = await bedrockConverseAdapter.chatRequest(chat, target(arn, null));
    assert.equal(spec.url, `https://bedrock-runtime.eu-west-1.amazonaws.com/model/${encodeURIComponent(arn)}/converse`);
    assert.ok(spec.url.includes('%2F'));
  });

  it('verifies a key with a one-token Converse call in the key region', async () => {
    const spec = await bedrockConverseAdapter.verifyKeyRequest({ apiKey: 'A::S::eu-central-1' });
    assert.equal(
      spec.url,
      'https://bedrock-runtime.eu-central-1.amazonaws.com/model/eu.amazon.nova-micro-v1%3A0/converse',
    );
    assert.deepEqual(JSON.parse(String(spec.body)).inferenceConfig, { maxTokens: 1 });
    const bearer = await bedrockConverseAdapter.verifyKeyRequest({ apiKey: 'ABSK123' });
    assert.equal(bearer.headers.authorization, 'Bearer ABSK123');
    assert.ok(bearer.url.startsWith('https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-micro'));
  });
});

describe('bedrockConverseAdapter.decodeError', () => {
  const cases: Array<[number, string, string, boolean]> = [
    [429, 'ThrottlingException', 'rate_limit', true],
    [400, 'ValidationException', 'invalid_request', false],
    [403, 'AccessDeniedException', 'permission', false],
    [403, 'UnrecognizedClientException', 'authentication', false],
    [403, 'InvalidSignatureException', 'authentication', false],
    [429, 'ModelNotReadyException', 'overloaded', true],
    [503, 'ServiceUnavailableException', 'overloaded', true],
    [409, 'ConflictException', 'invalid_request', true],
    [424, 'ModelErrorException', 'server', false],
    [500, 'InternalServerException', 'server', true],
    [408, 'ModelTimeoutException', 'timeout', true],
    [404, 'ResourceNotFoundException', 'not_found', false],
  ];
  it('maps x-amzn-ErrorType names', () => {
    for (const [status, name, kind, retryable] of cases) {
      const body = JSON.stringify({ message: `msg ${name}` });
      const info = bedrockConverseAdapter.decodeError(status, body, {
        'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      });
      assert.deepEqual(
        [info.status, info.kind, info.retryable, info.message, info.code, info.raw],
        [status, kind, retryable, `msg ${name}`, name, body],
      );
    }
  });

  it('reads {Message}, __type and retry headers, and falls back to the status', () => {
    const info = bedrockConverseAdapter.decodeError(
      403,
      '{"Message":"The security token included in the request is invalid.","__type":"com.amazon.coral.service#UnrecognizedClientException"}',
      { 'retry-after': '3' },
    );
    assert.deepEqual(
      [info.kind, info.message, info.code, info.retryAfter],
      ['authentication', 'The security token included in the request is invalid.', 'UnrecognizedClientException', '3'],
    );
    const unknown = bedrockConverseAdapter.decodeError(502, 'Bad Gateway', {});
    assert.deepEqual([unknown.kind, unknown.retryable, unknown.message], ['server', true, 'Bad Gateway']);
  });
});

describe('bedrock embeddings', () => {
  it('fans Titan v2 out one input per call, keeping only allowed dimensions', async () => {
    const t = target('amazon.titan-embed-text-v2:0');
    assert.equal(bedrockEmbeddingAdapter.supportsDimensions('amazon.titan-embed-text-v2:0'), true);
    assert.equal(bedrockEmbeddingAdapter.supportsDimensions('amazon.titan-embed-text-v1'), false);
    assert.equal(bedrockEmbeddingAdapter.supportsDimensions('cohere.embed-english-v3'), false);
    const specs = await embeddingRequests({ model: t.model, input: ['a', 'b'], dimensions: 512 }, t);
    assert.equal(specs.length, 2);
    assert.equal(specs[0].url, 'http://127.0.0.1:9/bedrock/model/amazon.titan-embed-text-v2%3A0/invoke');
    assert.deepEqual(
      specs.map((s) => JSON.parse(String(s.body))),
      [
        { inputText: 'a', normalize: true, dimensions: 512 },
        { inputText: 'b', normalize: true, dimensions: 512 },
      ],
    );
    assert.ok(specs[1].headers.authorization.startsWith('AWS4-HMAC-SHA256'));
    const odd = await embeddingRequests({ model: t.model, input: ['a'], dimensions: 300 }, t);
    assert.deepEqual(JSON.parse(String(odd[0].body)), { inputText: 'a', normalize: true });
    const v1 = await embeddingRequests(
      { model: 'x', input: ['a'], dimensions: 256 },
      target('amazon.titan-embed-text-v1'),
    );
    assert.deepEqual(JSON.parse(String(v1[0].body)), { inputText: 'a' });
    const single = await embeddingRequests({ model: t.model, input: ['a'] }, t);
    assert.deepEqual(
      single.map((s) => JSON.parse(String(s.body))),
      [{ inputText: 'a', normalize: true }],
    );
  });

  it('decodes and joins Titan answers with their token counts', () => {
    const t = target('amazon.titan-embed-text-v2:0');
    const req = { model: t.model, input: ['a', 'b'] };
    const body = fixture('titan-v2.json');
    assert.deepEqual(decodeEmbeddingResponses([body, body], req, t), {
      model: 'amazon.titan-embed-text-v2:0',
      vectors: [
        [0.25, -0.5, 0.125],
        [0.25, -0.5, 0.125],
      ],
      usage: { input: 6 },
    });
  });

  it('batches Cohere inputs and decodes both response shapes', async () => {
    const t = target('cohere.embed-english-v3');
    const input = Array.from({ length: 100 }, (_, i) => `t${i}`);
    const specs = await embeddingRequests({ model: t.model, input, dimensions: 256 }, t);
    assert.deepEqual(
      specs.map((s) => JSON.parse(String(s.body)).texts.length),
      [96, 4],
    );
    assert.deepEqual(JSON.parse(String(specs[1].body)), {
      texts: ['t96', 't97', 't98', 't99'],
      input_type: 'search_document',
    });
    const v3 = decodeEmbeddingResponses([fixture('cohere-v3.json')], { model: 'm', input: ['a', 'b'] }, t);
    assert.deepEqual(v3.vectors, [
      [0.1, 0.2],
      [0.3, 0.4],
    ]);
    assert.equal(v3.usage.input, 2);
    const v4t = target('cohere.embed-v4:0');
    const [v4spec] = await embeddingRequests({ model: v4t.model, input: ['c'], dimensions: 512 }, v4t);
    assert.deepEqual(JSON.parse(String(v4spec.body)), {
      texts: ['c'],
      input_type: 'search_document',
      embedding_types: ['float'],
      output_dimension: 512,
    });
    const v4 = decodeEmbeddingResponses([fixture('cohere-v4.json')], { model: 'm', input: ['c'] }, v4t);
    assert.deepEqual(v4.vectors, [[0.5, 0.6]]);
  });

  it('rejects models that are not embedding models it knows', async () => {
    await assert.rejects(embeddingRequests({ model: 'm', input: ['a'] }, target('amazon.nova-pro-v1:0')));
  });
});

describe('bedrockAnthropicAdapter (InvokeModel with Anthropic bodies)', () => {
  const req: ChatRequest = chatRequest('ignored', { messages: [user(text('hi'))], params: { maxTokens: 10 } });

  it('invoke URL with encoded model id, body without model/stream, version and betas in body, signed', async () => {
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

  it('raw pass-through: same body edits on the JSON text; bearer keys', async () => {
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

  it('reads an AWS-shaped error with x-amzn-ErrorType', () => {
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

  it('reads an Anthropic-shaped refusal as Anthropic would', () => {
    const body = '{"type":"error","error":{"type":"invalid_request_error","message":"bad field"}}';
    const info = bedrockAnthropicAdapter.decodeError(400, body, {});
    assert.deepEqual([info.kind, info.code, info.message], ['invalid_request', 'invalid_request_error', 'bad field']);
  });
});

// Bedrock strictness (ValidationException shapes), auth variants and eventstream framing vectors.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { eventFrame } from '../bedrock/eventstream.ts';
import { type FakeUpstream, startFakeUpstream } from '../server.ts';

let fake: FakeUpstream;
before(async () => {
  fake = await startFakeUpstream({ awsSecret: 'custom-secret' });
});
after(() => fake.close());

const BEARER: Record<string, string> = { authorization: 'Bearer sk-bedrock', 'content-type': 'application/json' };
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1%3A0';
const user = (text: string) => ({ role: 'user', content: [{ text }] });

async function post(op: string, body: unknown, headers: Record<string, string> = BEARER, model = MODEL) {
  const res = await fetch(`${fake.url}/bedrock/model/${model}/${op}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    type: res.headers.get('x-amzn-errortype') ?? '',
    body: (await res.json()) as { message: string },
  };
}

async function rejects(
  op: string,
  body: unknown,
  pattern: RegExp,
  name = 'ValidationException',
  status = 400,
  headers = BEARER,
) {
  const r = await post(op, body, headers);
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.type.split(':')[0], name);
  assert.match(r.body.message, pattern);
}

describe('bedrock auth', () => {
  test('Bearer key accepted; a refused bearer and missing auth rejected with 403', async () => {
    assert.equal((await post('converse', { messages: [user('hi')] })).status, 200);
    await rejects('converse', { messages: [user('hi')] }, /invalid/, 'UnrecognizedClientException', 403, {
      ...BEARER,
      authorization: 'Bearer revoked-key-1',
    });
    await rejects(
      'converse',
      { messages: [user('hi')] },
      /Missing Authentication Token/,
      'MissingAuthenticationTokenException',
      403,
      {
        'content-type': 'application/json',
      },
    );
  });

  test('SigV4 verified against the configured secret (awsSecret option), double-encoded path', async () => {
    const url = new URL(`${fake.url}/bedrock/model/${MODEL}/converse`);
    const body = JSON.stringify({ messages: [user('signed')] });
    const sign = (secretAccessKey: string) =>
      new SignatureV4({
        credentials: { accessKeyId: 'AKIDANY', secretAccessKey },
        region: 'eu-west-1',
        service: 'bedrock',
        sha256: Sha256,
      }).sign(
        new HttpRequest({
          method: 'POST',
          protocol: 'http:',
          hostname: url.hostname,
          port: Number(url.port),
          path: url.pathname,
          headers: { host: url.host, 'content-type': 'application/json' },
          body,
        }),
      );
    const send = async (secret: string) => {
      const signed = await sign(secret);
      return fetch(url, { method: 'POST', headers: signed.headers, body });
    };
    assert.equal((await send('custom-secret')).status, 200);
    const bad = await send('test-secret');
    assert.equal(bad.status, 403);
    assert.match(bad.headers.get('x-amzn-errortype') ?? '', /^InvalidSignatureException/);
    assert.match(((await bad.json()) as { message: string }).message, /signature/);
  });
});

describe('bedrock converse strictness', () => {
  const toolUse = { toolUse: { toolUseId: 'tooluse_1', name: 'f', input: {} } };
  const toolResult = { toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'r' }] } };
  const toolConfig = { tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } }] };
  const history = [user('x'), { role: 'assistant', content: [toolUse] }, { role: 'user', content: [toolResult] }];

  test('tool blocks without toolConfig', () =>
    rejects('converse', { messages: history }, /toolConfig field must be defined/));
  test('with toolConfig the same history is accepted', async () => {
    assert.equal((await post('converse', { messages: history, toolConfig })).status, 200);
  });
  test('missing / empty messages', async () => {
    await rejects('converse', {}, /messages/);
    await rejects('converse', { messages: [] }, /must start with a user message/);
  });
  test('first message not user; roles not alternating; bad role', async () => {
    await rejects(
      'converse',
      { messages: [{ role: 'assistant', content: [{ text: 'a' }] }] },
      /must start with a user message/,
    );
    await rejects('converse', { messages: [user('a'), user('b')] }, /alternate/);
    await rejects('converse', { messages: [{ role: 'system', content: [{ text: 'a' }] }] }, /enum value set/);
  });
  test('blank text and unknown block member', async () => {
    await rejects('converse', { messages: [user('')] }, /blank/);
    await rejects('converse', { messages: [{ role: 'user', content: [{ txt: 'a' }] }] }, /exactly one of/);
  });
  test('toolResult for an unknown toolUseId; toolUse without a following toolResult', async () => {
    const stray = [
      user('x'),
      { role: 'assistant', content: [toolUse] },
      { role: 'user', content: [{ toolResult: { ...toolResult.toolResult, toolUseId: 'other' } }] },
    ];
    await rejects('converse', { messages: stray, toolConfig }, /no toolUse/);
    await rejects(
      'converse',
      { messages: [user('x'), { role: 'assistant', content: [toolUse] }, user('y')], toolConfig },
      /Expected toolResult/,
    );
  });
  test('reasoning replay with a forged signature', () =>
    rejects(
      'converse',
      {
        messages: [
          user('x'),
          {
            role: 'assistant',
            content: [{ reasoningContent: { reasoningText: { text: 'hm', signature: 'forged' } } }, { text: 'a' }],
          },
          user('y'),
        ],
      },
      /signature/,
    ));
  test('inferenceConfig bounds', () =>
    rejects('converse', { messages: [user('x')], inferenceConfig: { maxTokens: 0 } }, /maxTokens/));
  test('scripted fail-500 -> InternalServerException', async () => {
    const r = await post('converse', { messages: [user('x')] }, BEARER, 'anthropic.claude-fail-500');
    assert.equal(r.status, 500);
    assert.match(r.type, /^InternalServerException/);
  });
});

describe('bedrock invoke strictness', () => {
  const anthropicBody = {
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 20,
    messages: [{ role: 'user', content: 'hi' }],
  };
  test('Anthropic body: version required, model/stream keys refused, Anthropic rules apply', async () => {
    assert.equal((await post('invoke', anthropicBody)).status, 200);
    await rejects('invoke', { ...anthropicBody, anthropic_version: undefined }, /anthropic_version/);
    await rejects('invoke', { ...anthropicBody, model: 'claude' }, /extraneous key \[model\]/);
    await rejects('invoke', { ...anthropicBody, max_tokens: undefined }, /max_tokens/);
    await rejects('invoke', { ...anthropicBody, messages: [] }, /messages/);
  });
  test('embedding bodies', async () => {
    const titan = (body: unknown) => post('invoke', body, BEARER, 'amazon.titan-embed-text-v2%3A0');
    assert.equal((await titan({ inputText: 'x', dimensions: 300 })).status, 400);
    assert.equal((await titan({})).status, 400);
    const forced = await post('invoke', { inputText: 'x' }, BEARER, 'amazon.titan-embed-text-v2-dims-3');
    assert.equal((forced.body as unknown as { embedding: number[] }).embedding.length, 3);
    const cohere = (body: unknown) => post('invoke', body, BEARER, 'cohere.embed-english-v3');
    assert.equal((await cohere({ texts: ['a'] })).status, 400);
    assert.equal((await cohere({ texts: [], input_type: 'search_query' })).status, 400);
  });
  test('model family without an emulated body', async () => {
    const r = await post('invoke', { prompt: 'x' }, BEARER, 'meta.llama3-8b-instruct-v1%3A0');
    assert.equal(r.status, 400);
    assert.match(r.type, /^ValidationException/);
  });
});

describe('eventstream framing', () => {
  test('matches the published vector for a contentBlockDelta frame', () => {
    const frame = Buffer.from(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }));
    assert.equal(frame.length, 148);
    assert.equal(frame.subarray(0, 12).toString('hex'), '0000009400000057b4ab9aee');
    assert.equal(frame.subarray(-4).toString('hex'), '1f944657');
  });
});

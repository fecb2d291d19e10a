// Family alpha embeddings (dimension rules 1 and 3, every vendor with embeddings) and the alpha error shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { call } from '../helpers/gateway.ts';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;
let client: OpenAI;

before(async () => {
  env = await startProxyEnv();
  client = new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
});
after(async () => {
  await env?.close();
});

function assertAlphaError(body: unknown, status: number, got: number): Record<string, unknown> {
  assert.equal(got, status, JSON.stringify(body));
  const e = (body as { error?: Record<string, unknown> }).error;
  assert.ok(e, JSON.stringify(body));
  assert.equal(typeof e.message, 'string');
  for (const k of ['type', 'param', 'code']) assert.ok(k in e, `${k} in ${JSON.stringify(e)}`);
  return e;
}

describe('embeddings', () => {
  test('openai text-embedding-3-small honours dimensions (base64 default and float)', async () => {
    const b64 = await client.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'a', dimensions: 256 });
    assert.equal(b64.data[0].embedding.length, 256);
    const { data, response } = await client.embeddings
      .create({ model: 'openai/text-embedding-3-small', input: ['a', 'b'], dimensions: 256, encoding_format: 'float' })
      .withResponse();
    assert.equal(data.data.length, 2);
    assert.equal(data.data[1].embedding.length, 256);
    assert.match(response.headers.get('x-svc-request-id') ?? '', /^req_/);
    assert.equal(response.headers.get('x-svc-model-used'), 'text-embedding-3-small');
    assert.equal(response.headers.get('x-svc-provider-used'), 'openai');
    assert.match(response.headers.get('x-svc-cost-usd') ?? '', /^\d+(\.\d+)?$/);
  });

  test('fixed-size model: dimensions stripped before the upstream', async () => {
    env.fake.clearRequests();
    const res = await client.embeddings.create({
      model: 'openai/text-embedding-ada-002',
      input: 'a',
      dimensions: 256,
      encoding_format: 'float',
    });
    assert.equal(res.data[0].embedding.length, 1536);
    const up = env.fake.requests().filter((r) => r.method === 'POST');
    assert.equal('dimensions' in (up[up.length - 1].body as object), false);
  });

  for (const model of [
    'google/text-embedding-004',
    'bedrock/amazon.titan-embed-text-v2:0',
    'bedrock/cohere.embed-english-v3',
    'azure-openai/text-embedding-3-small',
    'together/BAAI/bge-large-en-v1.5',
    'fireworks/nomic-ai/nomic-embed-text-v1.5',
  ]) {
    test(`${model} reachable`, async () => {
      const res = await client.embeddings.create({ model, input: ['hello', 'world'], encoding_format: 'float' });
      assert.equal(res.object, 'list');
      assert.equal(res.data.length, 2);
      assert.ok(res.data[0].embedding.length > 0);
    });
  }

  test('wrong length from upstream -> 502 dimension_mismatch', async () => {
    const r = await call(env.gw, 'POST', '/alpha/v1/embeddings', {
      model: 'openai/text-embedding-3-small-dims-7',
      input: 'x',
      dimensions: 256,
    });
    const e = assertAlphaError(r.body, 502, r.status);
    assert.equal(e.code, 'dimension_mismatch');
  });
});

describe('alpha error shape', () => {
  const chat = (body: unknown) => call(env.gw, 'POST', '/alpha/v1/chat/completions', body);

  test('unknown model -> 400 listing accepted forms', async () => {
    const r = await chat({ model: 'nosuchvendor-model', messages: [{ role: 'user', content: 'x' }] });
    const e = assertAlphaError(r.body, 400, r.status);
    assert.match(String(e.message), /vendor\/model|@/);
  });

  test('malformed JSON body -> 400', async () => {
    const r = await chat('{"model": "openai/gpt-4o-mini", "messages": [');
    assertAlphaError(r.body, 400, r.status);
  });

  test('wrong types -> 400', async () => {
    const r = await chat({ model: 'openai/gpt-4o-mini', messages: 'not-an-array' });
    assertAlphaError(r.body, 400, r.status);
    const r2 = await chat({ model: 42, messages: [{ role: 'user', content: 'x' }] });
    assertAlphaError(r2.body, 400, r2.status);
  });

  test('unknown @slug -> 400 or 404', async () => {
    const r = await chat({ model: '@no-such-config', messages: [{ role: 'user', content: 'x' }] });
    assert.ok(r.status === 400 || r.status === 404, String(r.status));
    assertAlphaError(r.body, r.status, r.status);
  });

  test('GET /alpha/v1/models is an empty list', async () => {
    const r = await call(env.gw, 'GET', '/alpha/v1/models');
    assert.deepEqual(r.body, { object: 'list', data: [] });
  });
});

describe('no stored credential for the vendor', () => {
  test('alpha error naming the missing credential', async () => {
    const { startGateway } = await import('../helpers/gateway.ts');
    const gw = await startGateway();
    try {
      const r = await call(gw, 'POST', '/alpha/v1/chat/completions', {
        model: 'anthropic/claude-3-5-haiku-latest',
        messages: [{ role: 'user', content: 'x' }],
      });
      assert.ok(r.status >= 400 && r.status < 500, String(r.status));
      assertAlphaError(r.body, r.status, r.status);
    } finally {
      await gw.close();
    }
  });
});

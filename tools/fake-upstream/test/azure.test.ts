// Azure OpenAI: the SDK's AzureOpenAI client on the classic deployment URLs, and the plain client on /openai/v1.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { AzureOpenAI, toFile } from 'openai';
import { type FakeUpstream, openaiClient, pollUntil, raw, startTestFake } from './helpers.ts';

let fake: FakeUpstream;
let azure: AzureOpenAI;

before(async () => {
  fake = await startTestFake();
  azure = new AzureOpenAI({
    endpoint: `${fake.url}/azure`,
    apiKey: 'sk-azure-key',
    apiVersion: '2024-10-21',
    maxRetries: 0,
  });
});
after(() => fake.close());

describe('azure classic (deployment) form', () => {
  test('chat: deployment in the path, api-version query, api-key header; deployment name is the model', async () => {
    fake.clearRequests();
    const r = await azure.chat.completions.create({
      model: 'my-gpt4o-deployment',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(r.choices[0].message.content, 'Echo: hi');
    assert.equal(r.model, 'my-gpt4o-deployment');
    const rec = fake.requests()[0];
    assert.equal(rec.path, '/azure/openai/deployments/my-gpt4o-deployment/chat/completions');
    assert.equal(rec.query['api-version'], '2024-10-21');
    assert.ok(rec.headers['api-key'] && rec.headers.authorization === undefined);
  });

  test('scripting follows the deployment name, not the body model', async () => {
    const res = await raw(
      fake,
      'POST',
      '/azure/openai/deployments/dep-tools/chat/completions?api-version=2024-10-21',
      {
        model: 'ignored',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function', function: { name: 'f' } }],
      },
      { 'api-key': 'sk-a' },
    );
    assert.equal((res.json as { choices: Array<{ finish_reason: string }> }).choices[0].finish_reason, 'tool_calls');
    const fail = await raw(
      fake,
      'POST',
      '/azure/openai/deployments/dep-fail-429/chat/completions?api-version=1',
      { messages: [{ role: 'user', content: 'x' }] },
      { 'api-key': 'sk-a' },
    );
    assert.equal(fail.status, 429);
  });

  test('stream: a prompt_filter_results chunk with choices [] first; the SDK still assembles the answer', async () => {
    const res = await raw(
      fake,
      'POST',
      '/azure/openai/deployments/d/chat/completions?api-version=2024-10-21',
      { messages: [{ role: 'user', content: 'x' }], stream: true },
      { 'api-key': 'sk-a' },
    );
    const first = JSON.parse(res.text.split('\n\n')[0].slice(6));
    assert.deepEqual(first.choices, []);
    assert.ok(Array.isArray(first.prompt_filter_results));
    let text = '';
    const stream = await azure.chat.completions.create({
      model: 'd',
      stream: true,
      messages: [{ role: 'user', content: 'azure stream' }],
    });
    for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
    assert.equal(text, 'Echo: azure stream');
  });

  test('embeddings and files/batches (non-deployment classic URLs)', async () => {
    const e = await azure.embeddings.create({ model: 'text-embedding-3-small', input: 'x', dimensions: 16 });
    assert.equal(e.data[0].embedding.length, 16);
    const line = JSON.stringify({
      custom_id: 'a',
      method: 'POST',
      url: '/chat/completions',
      body: { model: 'dep', messages: [{ role: 'user', content: 'q' }] },
    });
    const file = await azure.files.create({ file: await toFile(Buffer.from(line), 'b.jsonl'), purpose: 'batch' });
    const b = await azure.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const done = await pollUntil(
      () => azure.batches.retrieve(b.id),
      (x) => x.status === 'completed',
    );
    assert.equal(done.request_counts?.completed, 1);
  });

  test('api-version is required on classic URLs; a bad key gets Azure 401', async () => {
    const noVersion = await raw(
      fake,
      'POST',
      '/azure/openai/deployments/d/chat/completions',
      { messages: [] },
      { 'api-key': 'sk-a' },
    );
    assert.equal(noVersion.status, 404);
    assert.deepEqual(noVersion.json, { error: { code: '404', message: 'Resource not found' } });
    const bad = new AzureOpenAI({
      endpoint: `${fake.url}/azure`,
      apiKey: 'az-bad-key',
      apiVersion: '2024-10-21',
      maxRetries: 0,
    });
    await assert.rejects(
      bad.chat.completions.create({ model: 'd', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.AuthenticationError,
    );
  });
});

describe('azure v1 form', () => {
  test('plain OpenAI client on /azure/openai/v1 (Bearer), no api-version', async () => {
    const c = openaiClient(fake, '/azure/openai/v1', 'sk-azure-key');
    const r = await c.chat.completions.create({ model: 'my-deployment', messages: [{ role: 'user', content: 'v1' }] });
    assert.equal(r.choices[0].message.content, 'Echo: v1');
    const resp = await c.responses.create({ model: 'my-deployment', input: 'v1 resp' });
    assert.equal(resp.output_text, 'Echo: v1 resp');
  });

  test('api-key header works on v1 too; strictness errors keep the OpenAI shape', async () => {
    const res = await raw(
      fake,
      'POST',
      '/azure/openai/v1/chat/completions',
      { model: 'd', messages: [] },
      { 'api-key': 'sk-a' },
    );
    assert.equal(res.status, 400);
    assert.equal((res.json as { error: { code: string } }).error.code, 'empty_array');
  });
});

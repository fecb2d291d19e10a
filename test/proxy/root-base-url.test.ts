// One base URL for both SDKs: the openai SDK at `<host>/v1` and the anthropic SDK at `<host>` reach
// the same gateway as the family prefixes do (chat, embeddings, models, files, batches; messages,
// count_tokens, batches, models in the beta shape). GET / names the base URLs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

describe('root base URL', () => {
  let env: ProxyEnv;
  let openai: OpenAI;
  let anthropic: Anthropic;
  before(async () => {
    env = await startProxyEnv();
    openai = new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: env.gw.adminKey, baseURL: env.gw.url, maxRetries: 0 });
  });
  after(async () => {
    await env?.close();
  });

  test('the openai SDK at <host>/v1: chat (plain and streamed), embeddings, models, files, batches', async () => {
    const chat = await openai.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(chat.object, 'chat.completion');
    const stream = openai.chat.completions.stream({
      model: 'anthropic/claude-3-5-haiku-latest',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.ok((await stream.finalChatCompletion()).choices[0].message.content);
    const emb = await openai.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'x' });
    assert.equal(emb.data.length, 1);
    const models = await openai.models.list();
    assert.equal(models.object, 'list');
    const file = await openai.files.create({
      file: await toFile(Buffer.from('{}\n'), 'in.jsonl'),
      purpose: 'batch',
    });
    assert.equal((await openai.files.retrieve(file.id)).id, file.id);
    const list = await openai.batches.list();
    assert.ok(Array.isArray(list.data));
  });

  test('the anthropic SDK at <host>: messages (plain and streamed), count_tokens, batches, models', async () => {
    const msg = await anthropic.messages.create({
      model: 'openai/gpt-4o-mini',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(msg.type, 'message');
    const final = await anthropic.messages
      .stream({
        model: 'anthropic/claude-3-5-haiku-latest',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .finalMessage();
    assert.equal(final.role, 'assistant');
    const count = await anthropic.messages.countTokens({
      model: 'anthropic/claude-3-5-haiku-latest',
      messages: [{ role: 'user', content: 'hi there' }],
    });
    assert.ok(count.input_tokens > 0);
    const batches = await anthropic.messages.batches.list();
    assert.ok(Array.isArray(batches.data));
    // /v1/models answers in the caller's family: the anthropic SDK sends anthropic-version.
    const models = await anthropic.models.list();
    assert.deepEqual(models.data, []);
    const res = await fetch(`${env.gw.url}/v1/models`, {
      headers: { 'x-api-key': env.gw.adminKey, 'anthropic-version': '2023-06-01' },
    });
    assert.deepEqual(await res.json(), { data: [], has_more: false });
    const alpha = await fetch(`${env.gw.url}/v1/models`, { headers: { authorization: `Bearer ${env.gw.adminKey}` } });
    assert.deepEqual(await alpha.json(), { object: 'list', data: [] });
  });

  test('errors keep the family shape of the path they stand for', async () => {
    const beta = await fetch(`${env.gw.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'nope' } });
    assert.equal(beta.status, 401);
    assert.equal(((await beta.json()) as { type: string }).type, 'error');
    const alpha = await fetch(`${env.gw.url}/v1/chat/completions`, { method: 'POST' });
    assert.equal(alpha.status, 401);
    assert.ok(((await alpha.json()) as { error: unknown }).error);
  });

  test('GET / names the base URLs and the docs', async () => {
    const res = await fetch(`${env.gw.url}/`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { base_urls: Record<string, string>; docs: Record<string, string> };
    assert.equal(doc.base_urls.openai_sdk, `${env.gw.url}/v1`);
    assert.equal(doc.base_urls.anthropic_sdk, env.gw.url);
    assert.equal(doc.docs.openapi, `${env.gw.url}/openapi.yaml`);
    assert.equal(doc.docs.dashboard, `${env.gw.url}/ui/`);
    const browser = await fetch(`${env.gw.url}/`, { headers: { accept: 'text/html,*/*' }, redirect: 'manual' });
    assert.equal(browser.status, 302);
    assert.equal(browser.headers.get('location'), '/ui/');
  });
});

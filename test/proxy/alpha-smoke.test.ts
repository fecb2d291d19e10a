import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
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

describe('alpha chat through the gateway to every vendor', () => {
  for (const vendor of [
    'openai',
    'anthropic',
    'google',
    'azure-openai',
    'bedrock',
    'bedrock-anthropic',
    'together',
    'fireworks',
  ]) {
    test(`${vendor}: non-stream`, async () => {
      const res = await client.chat.completions.create({
        model: env.models[vendor],
        messages: [{ role: 'user', content: 'hello there' }],
        max_tokens: 50,
      });
      assert.equal(res.object, 'chat.completion');
      assert.equal(res.choices[0].message.content, 'Echo: hello there');
      assert.equal(res.choices[0].finish_reason, 'stop');
      assert.ok(res.usage && res.usage.completion_tokens > 0);
    });
    test(`${vendor}: stream`, async () => {
      const stream = client.chat.completions.stream({
        model: env.models[vendor],
        messages: [{ role: 'user', content: 'stream me' }],
        max_tokens: 50,
        stream_options: { include_usage: true },
      });
      const final = await stream.finalChatCompletion();
      assert.equal(final.choices[0].message.content, 'Echo: stream me');
      assert.equal(final.choices[0].finish_reason, 'stop');
    });
  }
});

describe('model names as LiteLLM users write them', () => {
  const names: Array<[string, string]> = [
    ['gemini/gemini-2.0-flash', 'google'],
    ['vertex_ai/gemini-2.0-flash', 'google'],
    ['azure/gpt-4o-mini', 'azure-openai'],
    ['bedrock/amazon.nova-lite-v1:0', 'bedrock'],
    ['together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo', 'together'],
    ['fireworks_ai/accounts/fireworks/models/llama-v3p1-70b-instruct', 'fireworks'],
  ];
  for (const [model, vendor] of names) {
    test(`${model} reaches ${vendor}`, async () => {
      const { data, response } = await client.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'hello there' }] })
        .withResponse();
      assert.equal(data.choices[0].message.content, 'Echo: hello there');
      assert.equal(response.headers.get('x-svc-provider'), vendor);
    });
  }

  test('an unknown prefix is model_not_found naming it and the accepted ones', async () => {
    const err = await client.chat.completions
      .create({ model: 'huggingface/zephyr-7b', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.APIError, String(err));
    assert.equal(err.status, 400);
    assert.equal(err.code, 'model_not_found');
    assert.match(err.message, /"huggingface\/" names no vendor/);
    assert.match(err.message, /gemini\/, vertex_ai\/, azure\/, together_ai\/, fireworks_ai\//);
  });
});

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

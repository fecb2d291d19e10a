import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;
let client: Anthropic;

before(async () => {
  env = await startProxyEnv();
  client = new Anthropic({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/beta`, maxRetries: 0 });
});
after(async () => {
  await env?.close();
});

describe('beta messages through the gateway to every vendor', () => {
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
      const msg = await client.messages.create({
        model: env.models[vendor],
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hello there' }],
      });
      assert.equal(msg.type, 'message');
      assert.equal(msg.role, 'assistant');
      const text = msg.content
        .filter((b) => b.type === 'text')
        .map((b) => (b.type === 'text' ? b.text : ''))
        .join('');
      assert.equal(text, 'Echo: hello there');
      assert.equal(msg.stop_reason, 'end_turn');
      assert.ok(msg.usage.output_tokens > 0);
    });
    test(`${vendor}: stream finalMessage`, async () => {
      const final = await client.messages
        .stream({ model: env.models[vendor], max_tokens: 50, messages: [{ role: 'user', content: 'stream me' }] })
        .finalMessage();
      const text = final.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      assert.equal(text, 'Echo: stream me');
      assert.equal(final.stop_reason, 'end_turn');
    });
  }
});

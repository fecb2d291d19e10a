// Family beta streams from every vendor: the SDK's finalMessage() and the raw SSE checked event by event.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { validateEventSequence } from './event-sequence.ts';
import { betaClient, betaPost, logRow, TIME_TOOL, WEATHER_TOOL } from './helpers.ts';

let env: ProxyEnv;
let client: Anthropic;

before(async () => {
  env = await startProxyEnv();
  client = betaClient(env);
});
after(async () => {
  await env?.close();
});

const VENDORS = [
  'openai',
  'anthropic',
  'google',
  'azure-openai',
  'bedrock',
  'bedrock-anthropic',
  'together',
  'fireworks',
];
/** Vendors whose fake answers `-thinking` models with reasoning the gateway can surface. */
const THINKS = new Set(['anthropic', 'bedrock-anthropic', 'google', 'bedrock']);

async function rawStream(body: Record<string, unknown>): Promise<ReturnType<typeof validateEventSequence>> {
  const res = await betaPost(env, '/v1/messages', { ...body, stream: true });
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  return validateEventSequence(res.text);
}

for (const vendor of VENDORS) {
  const model = () => env.models[vendor];
  describe(`beta stream <- ${vendor}`, () => {
    test('text: finalMessage and raw sequence', async () => {
      const final = await client.messages
        .stream({ model: `${model()}-long`, max_tokens: 2000, messages: [{ role: 'user', content: 'many chunks' }] })
        .finalMessage();
      const text = final.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      assert.ok(text.startsWith('Echo: many chunks [1]'), text);
      assert.equal(final.stop_reason, 'end_turn');
      assert.ok(final.usage.output_tokens > 0);
      const s = await rawStream({ model: model(), max_tokens: 50, messages: [{ role: 'user', content: 'raw' }] });
      assert.deepEqual(s.blocks, ['text']);
      assert.equal(s.stopReason, 'end_turn');
      assert.ok(s.outputTokens > 0);
    });

    test('one tool call (-tools)', async () => {
      const req = {
        model: `${model()}-tools`,
        max_tokens: 300,
        tools: [WEATHER_TOOL, TIME_TOOL],
        tool_choice: { type: 'any' as const },
        messages: [{ role: 'user' as const, content: 'weather in Lima' }],
      };
      const final = await client.messages.stream(req).finalMessage();
      assert.equal(final.stop_reason, 'tool_use');
      const uses = final.content.filter((b) => b.type === 'tool_use');
      assert.equal(uses.length, 1);
      assert.ok(uses[0].type === 'tool_use' && typeof uses[0].input === 'object' && uses[0].input !== null);
      const s = await rawStream(req);
      assert.equal(s.blocks.filter((b) => b === 'tool_use').length, 1);
      assert.equal(s.stopReason, 'tool_use');
    });

    test('two tool calls (-tools-2)', async () => {
      const req = {
        model: `${model()}-tools-2`,
        max_tokens: 300,
        tools: [WEATHER_TOOL, TIME_TOOL],
        messages: [{ role: 'user' as const, content: 'weather and time in Lima' }],
      };
      const final = await client.messages.stream(req).finalMessage();
      const names = final.content.flatMap((b) => (b.type === 'tool_use' ? [b.name] : []));
      assert.deepEqual(names.sort(), ['get_time', 'get_weather']);
      for (const b of final.content) if (b.type === 'tool_use') assert.equal(typeof b.input, 'object');
      const s = await rawStream(req);
      assert.equal(s.blocks.filter((b) => b === 'tool_use').length, 2);
    });

    test('thinking stream', async () => {
      const req = {
        model: `${model()}-thinking`,
        max_tokens: 1500,
        messages: [{ role: 'user' as const, content: 'ponder' }],
      };
      const final = await client.messages.stream(req).finalMessage();
      const types = final.content.map((b) => b.type);
      assert.equal(types[types.length - 1], 'text');
      if (THINKS.has(vendor)) assert.equal(types[0], 'thinking');
      const s = await rawStream(req);
      assert.equal(s.blocks[s.blocks.length - 1], 'text');
      if (THINKS.has(vendor)) assert.equal(s.blocks[0], 'thinking');
    });
  });
}

describe('beta stream bookkeeping', () => {
  test('a streamed request is logged as request_type message with usage', async () => {
    const res = await betaPost(env, '/v1/messages', {
      model: env.models.openai,
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'log me' }],
    });
    validateEventSequence(res.text);
    const row = await logRow(env, String(res.headers.get('x-svc-request-id')));
    assert.equal(row.requestType, 'message');
    assert.equal(row.statusCode, 200);
    assert.equal(row.provider, 'openai');
    assert.ok(row.outputTokens > 0);
  });

  test('anthropic stream carries cache counts into the log row and cost', async () => {
    const body = {
      model: 'anthropic/claude-3-5-haiku-latest',
      max_tokens: 50,
      stream: true,
      system: [{ type: 'text', text: 'Streamed stable prefix. '.repeat(30), cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'cache in stream' }],
    };
    const first = await betaPost(env, '/v1/messages', body);
    validateEventSequence(first.text);
    const w = await logRow(env, String(first.headers.get('x-svc-request-id')));
    assert.ok(w.cacheCreationTokens > 0);
    const second = await betaPost(env, '/v1/messages', body);
    const r = await logRow(env, String(second.headers.get('x-svc-request-id')));
    assert.equal(r.cacheReadTokens, w.cacheCreationTokens);
    assert.ok((r.costUsd ?? 0) > 0 && (r.costUsd ?? 0) < (w.costUsd ?? 0));
  });
});

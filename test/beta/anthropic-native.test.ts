// Family beta to its native upstreams (Anthropic, Bedrock InvokeModel) through the official SDK.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { validateEventSequence } from './event-sequence.ts';
import { betaClient, betaPost, bodyOf, lastUpstream, logRow, WEATHER_TOOL } from './helpers.ts';

let env: ProxyEnv;
let client: Anthropic;

before(async () => {
  env = await startProxyEnv();
  client = betaClient(env);
});
after(async () => {
  await env?.close();
});

const HAIKU = 'anthropic/claude-3-5-haiku-latest';
const BEDROCK_CLAUDE = 'bedrock/anthropic.claude-3-5-haiku-20241022-v1:0';

async function thinkingRoundTrip(model: string, fragment: string): Promise<void> {
  const first = await client.messages.create({
    model,
    max_tokens: 2048,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    messages: [{ role: 'user', content: 'think about cats' }],
  });
  assert.equal(first.content[0].type, 'thinking');
  const block = first.content[0];
  assert.ok(block.type === 'thinking' && block.signature.startsWith('Sig'));
  const second = await client.messages.create({
    model,
    max_tokens: 2048,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    messages: [
      { role: 'user', content: 'think about cats' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: 'and dogs?' },
    ],
  });
  assert.equal(second.type, 'message');
  const text = second.content.find((b) => b.type === 'text');
  assert.ok(text && text.type === 'text' && text.text === 'Echo: and dogs?');
  // The signed block reached the upstream byte for byte (the fake also verifies the HMAC).
  const sent = bodyOf(lastUpstream(env, fragment)).messages as Array<{ content: unknown }>;
  assert.deepEqual((sent[1].content as unknown[])[0], JSON.parse(JSON.stringify(block)));
}

describe('beta -> anthropic (native)', () => {
  test('thinking + signature round trip over two turns', async () => {
    await thinkingRoundTrip(HAIKU, '/anthropic/v1/messages');
  });

  test('cache_control on system, tools and message blocks reaches the fake unchanged; metadata stripped', async () => {
    env.fake.clearRequests();
    const body = {
      model: HAIKU,
      max_tokens: 100,
      system: [{ type: 'text' as const, text: 'You are terse.', cache_control: { type: 'ephemeral' as const } }],
      tools: [{ ...WEATHER_TOOL, cache_control: { type: 'ephemeral' as const } }],
      tool_choice: { type: 'auto' as const },
      metadata: { user_id: 'u-42' },
      messages: [
        {
          role: 'user' as const,
          content: [{ type: 'text' as const, text: 'hello cache', cache_control: { type: 'ephemeral' as const } }],
        },
      ],
    };
    await client.messages.create(body);
    const sent = bodyOf(lastUpstream(env, '/anthropic/v1/messages'));
    assert.equal(sent.model, 'claude-3-5-haiku-latest');
    assert.equal(sent.metadata, undefined);
    assert.deepEqual(sent.system, body.system);
    assert.deepEqual(sent.tools, body.tools);
    assert.deepEqual(sent.messages, body.messages);
    assert.deepEqual(sent.tool_choice, { type: 'auto' });
  });

  test('cache write then read: counted in the log row and priced in cost', async () => {
    const long = 'A long stable system prompt. '.repeat(40);
    const req = {
      model: HAIKU,
      max_tokens: 100,
      system: [{ type: 'text' as const, text: long, cache_control: { type: 'ephemeral' as const } }],
      messages: [{ role: 'user' as const, content: 'cached question' }],
    };
    const w = await client.messages.create(req).withResponse();
    assert.ok((w.data.usage.cache_creation_input_tokens ?? 0) > 0);
    const wRow = await logRow(env, String(w.response.headers.get('x-svc-request-id')));
    assert.equal(wRow.requestType, 'message');
    assert.equal(wRow.cacheCreationTokens, w.data.usage.cache_creation_input_tokens);
    assert.equal(wRow.cacheReadTokens, 0);

    const r = await client.messages.create(req).withResponse();
    const read = r.data.usage.cache_read_input_tokens ?? 0;
    assert.equal(read, w.data.usage.cache_creation_input_tokens);
    const rRow = await logRow(env, String(r.response.headers.get('x-svc-request-id')));
    assert.equal(rRow.cacheReadTokens, read);
    assert.equal(rRow.cacheCreationTokens, 0);

    // claude-3-5-haiku: input 0.8, output 4, cache_read 0.08, cache_write 1 (USD per million).
    const price = (u: Anthropic.Usage) =>
      (u.input_tokens * 0.8 +
        u.output_tokens * 4 +
        (u.cache_read_input_tokens ?? 0) * 0.08 +
        (u.cache_creation_input_tokens ?? 0) * 1) /
      1e6;
    for (const [res, row] of [
      [w, wRow],
      [r, rRow],
    ] as const) {
      const expected = price(res.data.usage);
      const header = Number(res.response.headers.get('x-svc-cost-usd'));
      assert.ok(Math.abs(header - expected) < 1e-9, `header ${header} vs ${expected}`);
      assert.ok(Math.abs((row.costUsd ?? -1) - expected) < 1e-9, `row ${row.costUsd} vs ${expected}`);
    }
    assert.ok((rRow.costUsd ?? 0) < (wRow.costUsd ?? 0), 'a cache read is cheaper than a write');
  });

  test('x-alt-version / x-alt-beta win over anthropic-version / anthropic-beta; default version otherwise', async () => {
    const msg = { model: HAIKU, max_tokens: 20, messages: [{ role: 'user', content: 'v' }] };
    const path = '/anthropic/v1/messages';
    const headersOf = async (h: Record<string, string>) => {
      const res = await betaPost(env, '/v1/messages', msg, { 'x-api-key': env.gw.adminKey, ...h });
      assert.equal(res.status, 200, res.text);
      return lastUpstream(env, path).headers;
    };
    const both = await headersOf({
      'x-alt-version': '2023-06-01',
      'x-alt-beta': 'prompt-caching-2024-07-31',
      'anthropic-version': '2020-01-01',
      'anthropic-beta': 'other-beta',
    });
    assert.equal(both['anthropic-version'], '2023-06-01');
    assert.equal(both['anthropic-beta'], 'prompt-caching-2024-07-31');
    const sdkNames = await headersOf({ 'anthropic-version': '2023-06-01', 'anthropic-beta': 'token-efficient-tools' });
    assert.equal(sdkNames['anthropic-version'], '2023-06-01');
    assert.equal(sdkNames['anthropic-beta'], 'token-efficient-tools');
    const none = await headersOf({});
    assert.equal(typeof none['anthropic-version'], 'string');
    assert.ok(none['anthropic-version'].length > 0);
    assert.equal(none['anthropic-beta'], undefined);
    assert.equal(none['x-alt-version'], undefined);
  });

  test('tool_choice passes verbatim and tool_use comes back', async () => {
    const msg = await client.messages.create({
      model: `${HAIKU}-tools`,
      max_tokens: 200,
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
      messages: [{ role: 'user', content: 'weather in Paris' }],
    });
    assert.equal(msg.stop_reason, 'tool_use');
    assert.deepEqual(bodyOf(lastUpstream(env, '/anthropic/v1/messages')).tool_choice, {
      type: 'tool',
      name: 'get_weather',
      disable_parallel_tool_use: true,
    });
  });

  test('stream is relayed event by event (thinking + text)', async () => {
    const res = await betaPost(env, '/v1/messages', {
      model: `${HAIKU}-thinking`,
      max_tokens: 500,
      stream: true,
      messages: [{ role: 'user', content: 'stream thoughts' }],
    });
    assert.equal(res.status, 200);
    const s = validateEventSequence(res.text);
    assert.deepEqual(s.blocks, ['thinking', 'text']);
    assert.ok(s.events.includes('ping'), 'native pings are relayed');
    assert.equal(s.stopReason, 'end_turn');
  });
});

describe('beta -> bedrock anthropic (InvokeModel)', () => {
  test('JSON', async () => {
    const msg = await client.messages.create({
      model: BEDROCK_CLAUDE,
      max_tokens: 50,
      metadata: { user_id: 'u-1' },
      messages: [{ role: 'user', content: 'hi bedrock' }],
    });
    assert.equal(msg.content[0].type === 'text' && msg.content[0].text, 'Echo: hi bedrock');
    const sent = lastUpstream(env, '/invoke');
    assert.equal(bodyOf(sent).metadata, undefined);
    assert.equal(bodyOf(sent).model, undefined, 'Bedrock carries the model in the path');
  });

  test('thinking + signature round trip', async () => {
    await thinkingRoundTrip(BEDROCK_CLAUDE, '/invoke');
  });

  test('stream: finalMessage and raw event sequence', async () => {
    const final = await client.messages
      .stream({
        model: `${BEDROCK_CLAUDE}-thinking`,
        max_tokens: 500,
        messages: [{ role: 'user', content: 'bedrock stream' }],
      })
      .finalMessage();
    assert.deepEqual(
      final.content.map((b) => b.type),
      ['thinking', 'text'],
    );
    const res = await betaPost(env, '/v1/messages', {
      model: `${BEDROCK_CLAUDE}-tools`,
      max_tokens: 500,
      stream: true,
      tools: [WEATHER_TOOL],
      messages: [{ role: 'user', content: 'bedrock tools' }],
    });
    const s = validateEventSequence(res.text);
    assert.deepEqual(s.blocks, ['tool_use']);
    assert.equal(s.stopReason, 'tool_use');
  });
});

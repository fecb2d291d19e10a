// Family alpha end to end with the official openai SDK: tools across translated vendors, BYOK,
// pass-through fields, stripped svc keys, user override, response headers and log rows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { RecordedRequest } from '../../tools/fake-upstream/context.ts';
import { type ProxyEnv, STORED_KEY, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';

let env: ProxyEnv;
let client: OpenAI;

before(async () => {
  env = await startProxyEnv();
  client = new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
});
after(async () => {
  await env?.close();
});

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

function lastPost(): RecordedRequest {
  const r = env.fake.requests().filter((x) => x.method === 'POST');
  assert.ok(r.length > 0, 'upstream saw a request');
  return r[r.length - 1];
}
const bodyOf = (r: RecordedRequest): Record<string, unknown> => r.body as Record<string, unknown>;

describe('tools across translated vendors (openai SDK)', () => {
  for (const vendor of ['anthropic', 'google', 'bedrock', 'bedrock-anthropic']) {
    test(`${vendor}: parallel tool calls, non-stream`, async () => {
      const res = await client.chat.completions.create({
        model: `${VENDOR_MODELS[vendor]}-tools-2`,
        messages: [{ role: 'user', content: 'Oslo' }],
        tools: TOOLS,
      });
      const choice = res.choices[0];
      assert.equal(choice.finish_reason, 'tool_calls');
      const calls = choice.message.tool_calls ?? [];
      assert.equal(calls.length, 2);
      for (const c of calls) {
        assert.ok(c.id);
        assert.equal(c.type, 'function');
        if (c.type === 'function') assert.deepEqual(JSON.parse(c.function.arguments), { city: 'Oslo' });
      }
    });
    test(`${vendor}: tool calls, stream finalChatCompletion`, async () => {
      const stream = client.chat.completions.stream({
        model: `${VENDOR_MODELS[vendor]}-tools-2`,
        messages: [{ role: 'user', content: 'Oslo' }],
        tools: TOOLS,
        stream_options: { include_usage: true },
      });
      const final = await stream.finalChatCompletion();
      const choice = final.choices[0];
      assert.equal(choice.finish_reason, 'tool_calls');
      const calls = choice.message.tool_calls ?? [];
      assert.equal(calls.length, 2);
      assert.equal(new Set(calls.map((c) => c.id)).size, 2);
      for (const c of calls)
        if (c.type === 'function') assert.deepEqual(JSON.parse(c.function.arguments), { city: 'Oslo' });
      assert.ok(final.usage && final.usage.completion_tokens > 0);
    });
  }
});

describe('BYOK and pass-through', () => {
  test('BYOK key reaches the fake instead of the stored one', async () => {
    env.fake.clearRequests();
    const byok = 'sk-byok-key-9876543210WXYZ';
    await client.chat.completions.create(
      { model: VENDOR_MODELS.openai, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'X-Svc-Provider-Key': byok } },
    );
    const auth = lastPost().headers.authorization ?? '';
    assert.ok(auth.endsWith('WXYZ'), auth);
    assert.ok(!auth.endsWith(STORED_KEY.slice(-4)) || STORED_KEY.slice(-4) === 'WXYZ');
  });

  const PASS = {
    response_format: { type: 'json_object' as const },
    seed: 42,
    logprobs: true,
    top_logprobs: 3,
    parallel_tool_calls: false,
  };

  test('pass-through fields byte-identical at openai; svc keys, metadata stripped; user overridden', async () => {
    env.fake.clearRequests();
    await client.chat.completions.create(
      {
        model: VENDOR_MODELS.openai,
        messages: [{ role: 'user', content: 'json please' }],
        tools: TOOLS,
        ...PASS,
        user: 'body-user',
        metadata: { trace_id: 'tr-meta' },
        // @ts-expect-error svc extension keys are not in the SDK types
        'svc:tags': { team: 'a' },
      },
      { headers: { 'X-Svc-User-Id': 'header-user' } },
    );
    const body = bodyOf(lastPost());
    for (const [k, v] of Object.entries(PASS)) assert.deepEqual(body[k], v, k);
    assert.equal(body.user, 'header-user');
    assert.equal(body.metadata, undefined);
    for (const k of Object.keys(body)) assert.ok(!k.startsWith('svc:'), k);
  });

  test('pass-through fields absent at openai when unset', async () => {
    env.fake.clearRequests();
    await client.chat.completions.create({ model: VENDOR_MODELS.openai, messages: [{ role: 'user', content: 'x' }] });
    const body = bodyOf(lastPost());
    for (const k of Object.keys(PASS)) assert.equal(k in body, false, k);
  });

  test('pass-through fields and svc keys absent at the anthropic fake', async () => {
    env.fake.clearRequests();
    await client.chat.completions.create({
      model: VENDOR_MODELS.anthropic,
      messages: [{ role: 'user', content: 'x' }],
      tools: TOOLS,
      ...PASS,
      metadata: { conversation_id: 'c1' },
      // @ts-expect-error svc extension keys are not in the SDK types
      extra_body: { 'svc:tags': { team: 'b' } },
    });
    const body = bodyOf(lastPost());
    for (const k of ['seed', 'logprobs', 'top_logprobs', 'parallel_tool_calls', 'response_format'])
      assert.equal(k in body, false, k);
    const text = JSON.stringify(body);
    assert.ok(!text.includes('svc:'), text);
    assert.ok(!text.includes('conversation_id'), text);
  });
});

describe('response headers and log rows', () => {
  async function rowFor(id: string) {
    const svc = env.gw.app.svc;
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setImmediate(r));
      await svc.logs.flush();
      const row = await svc.stores.logs.get(svc.bootstrap.orgId, id);
      if (row) return row;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no log row for ${id}`);
  }

  test('chat JSON headers and log row with tags, ids from headers', async () => {
    const { data, response } = await client.chat.completions
      .create(
        {
          model: VENDOR_MODELS.openai,
          messages: [{ role: 'user', content: 'headers' }],
          // @ts-expect-error svc extension keys are not in the SDK types
          'svc:tags': { team: 'core' },
        },
        { headers: { 'X-Svc-User-Tags': 'env=test', 'X-Svc-Trace-Id': 'tr-1', 'X-Svc-Conversation-Id': 'cv-1' } },
      )
      .withResponse();
    assert.ok(data.choices[0].message.content);
    const h = response.headers;
    const id = h.get('x-svc-request-id') ?? '';
    assert.match(id, /^req_/);
    assert.equal(h.get('x-svc-model-used'), 'gpt-4o-mini');
    assert.equal(h.get('x-svc-provider-used'), 'openai');
    assert.equal(h.get('x-svc-provider'), 'openai');
    assert.match(h.get('x-svc-cost-usd') ?? '', /^\d+(\.\d+)?$/);
    assert.equal(h.get('x-svc-cache'), 'MISS');
    assert.match(h.get('x-svc-latency-ms') ?? '', /^\d+(\.\d+)?$/);
    const row = await rowFor(id);
    assert.equal(row.requestType, 'chat_completion');
    assert.equal(row.statusCode, 200);
    assert.ok(row.inputTokens > 0 && row.outputTokens > 0);
    assert.ok((row.costUsd ?? 0) > 0, `cost ${row.costUsd}`);
    assert.deepEqual(row.tags, { team: 'core', env: 'test' });
    assert.equal(row.traceId, 'tr-1');
    assert.equal(row.conversationId, 'cv-1');
  });

  test('trace and conversation ids read from metadata when headers are absent', async () => {
    const { response } = await client.chat.completions
      .create({
        model: VENDOR_MODELS.anthropic,
        messages: [{ role: 'user', content: 'meta' }],
        metadata: { trace_id: 'tr-m', conversation_id: 'cv-m' },
      })
      .withResponse();
    const row = await rowFor(response.headers.get('x-svc-request-id') ?? '');
    assert.equal(row.traceId, 'tr-m');
    assert.equal(row.conversationId, 'cv-m');
  });

  test('failed call: log row with status and error', async () => {
    const res = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: `${VENDOR_MODELS.google}-fail-500`, messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(res.status, 502);
    await res.text();
    const row = await rowFor(res.headers.get('x-svc-request-id') ?? '');
    assert.equal(row.statusCode, 502);
    assert.ok(row.error);
  });
});

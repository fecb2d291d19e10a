// Chat Completions on the OpenAI-wire prefixes, driven by the official `openai` SDK as a user would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { countTokens } from '../script.ts';
import { assertPaced, type FakeUpstream, openaiClient, raw, startTestFake } from './helpers.ts';

let fake: FakeUpstream;
let client: OpenAI;

before(async () => {
  fake = await startTestFake();
  client = openaiClient(fake);
});
after(() => fake.close());

const weather: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city', 'days'],
    },
  },
};
const search: ChatCompletionTool = {
  type: 'function',
  function: { name: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
};

describe('chat completions (JSON)', () => {
  test('deterministic echo with exact usage; Bearer key recorded masked', async () => {
    fake.clearRequests();
    const r = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
    });
    assert.equal(r.object, 'chat.completion');
    assert.equal(r.choices[0].message.content, 'Echo: Hello there');
    assert.equal(r.choices[0].finish_reason, 'stop');
    assert.equal(r.usage?.prompt_tokens, countTokens('Be brief.\nHello there'));
    assert.equal(r.usage?.completion_tokens, countTokens('Echo: Hello there'));
    const rec = fake.requests()[0];
    assert.equal(rec.path, '/openai/v1/chat/completions');
    assert.ok(!rec.headers.authorization.includes('sk-test-key'), 'secret masked');
  });

  for (const [vendor, prefix, model] of [
    ['together', '/together/v1', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'],
    ['fireworks', '/fireworks/inference/v1', 'accounts/fireworks/models/llama-v3p1-70b-instruct'],
  ] as const) {
    test(`${vendor} base URL serves the same wire`, async () => {
      const c = openaiClient(fake, prefix);
      const r = await c.chat.completions.create({ model, messages: [{ role: 'user', content: 'ping' }] });
      assert.equal(r.model, model);
      assert.equal(r.choices[0].message.content, 'Echo: ping');
      const models = await c.models.list();
      assert.ok(models.data.length > 0);
    });
  }

  test('tools model calls the first declared tool with schema-shaped arguments', async () => {
    const r = await client.chat.completions.create({
      model: 'gpt-4o-tools',
      messages: [{ role: 'user', content: 'Paris' }],
      tools: [weather, search],
    });
    const calls = r.choices[0].message.tool_calls ?? [];
    assert.equal(r.choices[0].finish_reason, 'tool_calls');
    assert.equal(calls.length, 1);
    const call = calls[0];
    assert.ok(call.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris', days: 1 });
    assert.match(call.id, /^call_[0-9a-f]{16}$/);
  });

  test('a tool result gets a text answer (agent loops end)', async () => {
    const r = await client.chat.completions.create({
      model: 'gpt-4o-tools',
      tools: [search],
      messages: [
        { role: 'user', content: 'find cats' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'cats found' },
      ],
    });
    assert.equal(r.choices[0].message.content, 'Echo: find cats');
  });

  test('json / badjson / max_tokens / stop / n', async () => {
    const j = await client.chat.completions.create({
      model: 'gpt-4o-json',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.deepEqual(JSON.parse(j.choices[0].message.content ?? ''), { answer: 'x', ok: true });
    const b = await client.chat.completions.create({
      model: 'gpt-4o-badjson',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.throws(() => JSON.parse(b.choices[0].message.content ?? ''));
    const l = await client.chat.completions.create({
      model: 'gpt-4o',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'a long question' }],
    });
    assert.equal(l.choices[0].finish_reason, 'length');
    assert.equal(l.choices[0].message.content, 'Echo: a ');
    const s = await client.chat.completions.create({
      model: 'gpt-4o',
      stop: ['lo'],
      messages: [{ role: 'user', content: 'hello' }],
    });
    assert.equal(s.choices[0].message.content, 'Echo: hel');
    const n = await client.chat.completions.create({
      model: 'gpt-4o',
      n: 3,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.deepEqual(
      n.choices.map((c) => c.index),
      [0, 1, 2],
    );
  });
});

describe('chat completions (SSE)', () => {
  test('pace-<ms> spaces the chunks: the deltas arrive apart', async () => {
    const started = performance.now();
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini-chunks-4-pace-30',
      messages: [{ role: 'user', content: 'pace me' }],
      stream: true,
    });
    const at: number[] = [];
    for await (const c of stream) if (c.choices[0]?.delta.content) at.push(performance.now());
    assert.equal(at.length, 4);
    assertPaced(started, at, 30);
  });

  test('stream with include_usage: role chunk, deltas, finish, usage chunk with choices [] and [DONE]', async () => {
    const res = await raw(fake, 'POST', '/openai/v1/chat/completions', {
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream me please' }],
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const records = res.text.split('\n\n').filter((r) => r !== '');
    assert.equal(records.at(-1), 'data: [DONE]');
    const chunks = records.slice(0, -1).map((r) => JSON.parse(r.slice('data: '.length)));
    assert.equal(chunks[0].choices[0].delta.role, 'assistant');
    const usageChunk = chunks.at(-1);
    assert.deepEqual(usageChunk.choices, []);
    assert.equal(usageChunk.usage.completion_tokens, countTokens('Echo: stream me please'));
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
    assert.equal(chunks.at(-2).choices[0].finish_reason, 'stop');
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    assert.equal(text, 'Echo: stream me please');
    assert.ok(chunks.length >= 7, 'text split into several chunks');
  });

  test('SDK iterator and .stream().finalChatCompletion()', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'abc' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const c of stream) {
      text += c.choices[0]?.delta?.content ?? '';
      if (c.usage) usage = c.usage;
    }
    assert.equal(text, 'Echo: abc');
    assert.equal(usage?.total_tokens, countTokens('abc') + countTokens('Echo: abc'));

    const helper = client.chat.completions.stream({
      model: 'gpt-4o-long',
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'go' }],
    });
    let deltas = 0;
    helper.on('content.delta', () => {
      deltas++;
    });
    const final = await helper.finalChatCompletion();
    assert.ok(deltas >= 20, `long answers stream in many chunks (${deltas})`);
    assert.ok(final.choices[0].message.content?.startsWith('Echo: go [1]'));
    assert.equal(final.usage?.completion_tokens, countTokens(final.choices[0].message.content ?? ''));
  });

  test('parallel tool calls (tools-2) arrive as fragments with id+name first and reassemble', async () => {
    const res = await raw(fake, 'POST', '/openai/v1/chat/completions', {
      model: 'gpt-4o-tools-2',
      stream: true,
      tools: [weather, search],
      messages: [{ role: 'user', content: 'Rome' }],
    });
    const chunks = res.text
      .split('\n\n')
      .filter((r) => r.startsWith('data: {'))
      .map((r) => JSON.parse(r.slice(6)));
    const fragments = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    for (const idx of [0, 1]) {
      const mine = fragments.filter((f) => f.index === idx);
      assert.ok(mine.length >= 3, 'arguments split into several fragments');
      assert.ok(mine[0].id && mine[0].function.name && mine[0].function.arguments === '');
      assert.ok(mine.slice(1).every((f) => f.id === undefined && f.function.name === undefined));
    }

    const final = await client.chat.completions
      .stream({ model: 'gpt-4o-tools-2', tools: [weather, search], messages: [{ role: 'user', content: 'Rome' }] })
      .finalChatCompletion();
    const calls = final.choices[0].message.tool_calls ?? [];
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(
      calls.map((c) => (c.type === 'function' ? [c.function.name, JSON.parse(c.function.arguments)] : [])),
      [
        ['get_weather', { city: 'Rome', days: 1 }],
        ['search', { query: 'Rome' }],
      ],
    );
  });

  test('n > 1 streams every choice', async () => {
    const final = await client.chat.completions
      .stream({ model: 'gpt-4o', n: 2, messages: [{ role: 'user', content: 'two' }] })
      .finalChatCompletion();
    assert.deepEqual(
      final.choices.map((c) => c.message.content),
      ['Echo: two', 'Echo: two'],
    );
  });

  test('midstream-error: a few chunks, then an error record, no [DONE]; the SDK throws', async () => {
    const res = await raw(fake, 'POST', '/openai/v1/chat/completions', {
      model: 'gpt-4o-midstream-error',
      stream: true,
      messages: [{ role: 'user', content: 'break' }],
    });
    assert.ok(!res.text.includes('[DONE]'));
    assert.match(res.text, /data: \{"error":\{"message":/);
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-midstream-error',
      stream: true,
      messages: [{ role: 'user', content: 'break' }],
    });
    let seen = 0;
    await assert.rejects(async () => {
      for await (const _ of stream) seen++;
    }, OpenAI.APIError);
    assert.ok(seen >= 2, 'some chunks arrived before the break');
  });
});

describe('scripted failures and delays', () => {
  test('fail-429 carries retry-after and the OpenAI body; the SDK maps it to RateLimitError', async () => {
    const res = await raw(fake, 'POST', '/openai/v1/chat/completions', {
      model: 'gpt-fail-429',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '1');
    assert.deepEqual(Object.keys((res.json as { error: object }).error).sort(), ['code', 'message', 'param', 'type']);
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-fail-429', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.RateLimitError,
    );
  });

  test('fail-500 and fail-400', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-fail-500', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.InternalServerError,
    );
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-fail-400', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.BadRequestError,
    );
  });

  test('slow-<ms> delays the answer; hang never answers', async () => {
    const t0 = Date.now();
    await client.chat.completions.create({ model: 'gpt-slow-120', messages: [{ role: 'user', content: 'x' }] });
    assert.ok(Date.now() - t0 >= 110);
    const c = new OpenAI({ apiKey: 'sk-x', baseURL: `${fake.url}/openai/v1`, maxRetries: 0, timeout: 150 });
    await assert.rejects(
      c.chat.completions.create({ model: 'gpt-hang', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.APIConnectionTimeoutError,
    );
  });
});

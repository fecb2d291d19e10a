// Drives the Anthropic emulation with the official @anthropic-ai/sdk, as a user would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { countTokens } from '../script.ts';
import { type FakeUpstream, startFakeUpstream } from '../server.ts';
import { assertPaced } from './helpers.ts';

let fake: FakeUpstream;
let client: Anthropic;

before(async () => {
  // Long enough that a loaded CI machine still sees the batch in progress right after create.
  fake = await startFakeUpstream({ batchStepMs: 250 });
  client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: `${fake.url}/anthropic`, maxRetries: 0 });
});
after(() => fake.close());

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
const clock = { name: 'get_time', input_schema: { type: 'object' as const, properties: {} } };

describe('anthropic messages via the official SDK', () => {
  test('plain message: deterministic text and exact usage; SDK sends Bearer + anthropic-version', async () => {
    fake.clearRequests();
    const msg = await client.messages.create({
      model: 'claude-x',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    assert.equal(msg.type, 'message');
    assert.deepEqual(msg.content, [{ type: 'text', text: 'Echo: Hello there' }]);
    assert.equal(msg.stop_reason, 'end_turn');
    assert.equal(msg.usage.input_tokens, countTokens('Hello there'));
    assert.equal(msg.usage.output_tokens, countTokens('Echo: Hello there'));
    const [rec] = fake.requests();
    assert.match(rec.headers.authorization, /^Bearer sk-/);
    assert.ok(rec.headers['anthropic-version']);
  });

  test('stream with finalMessage(): same message as the JSON form', async () => {
    const stream = client.messages.stream({
      model: 'claude-long',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'stream me' }],
    });
    const texts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    const msg = await stream.finalMessage();
    assert.ok(texts.length >= 20, `expected many chunks, got ${texts.length}`);
    const block = msg.content[0];
    assert.equal(block.type, 'text');
    assert.equal(block.type === 'text' && block.text, texts.join(''));
    assert.match(texts.join(''), /^Echo: stream me \[1\]/);
    assert.equal(msg.usage.output_tokens, countTokens(texts.join('')));
  });

  test('pace-<ms> spaces the records: the deltas arrive apart', async () => {
    const started = performance.now();
    const stream = client.messages.stream({
      model: 'claude-chunks-4-pace-30',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'pace me' }],
    });
    const at: number[] = [];
    stream.on('text', () => at.push(performance.now()));
    await stream.finalMessage();
    assert.equal(at.length, 4);
    assertPaced(started, at, 30);
  });

  test('raw SSE has the exact event order with ping', async () => {
    const res = await fetch(`${fake.url}/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-x', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude-x',
        max_tokens: 50,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    const names = [...(await res.text()).matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    assert.deepEqual(names.slice(0, 3), ['message_start', 'content_block_start', 'ping']);
    assert.deepEqual(names.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
  });

  test('thinking: signed block, replay accepted, tampered signature rejected', async () => {
    const msg = await client.messages.create({
      model: 'claude-x',
      max_tokens: 4000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      messages: [{ role: 'user', content: 'why?' }],
    });
    const thinking = msg.content[0];
    assert.equal(thinking.type, 'thinking');
    assert.ok(thinking.type === 'thinking' && thinking.signature.length > 10);
    const streamed = await client.messages
      .stream({ model: 'claude-thinking', max_tokens: 200, messages: [{ role: 'user', content: 'why?' }] })
      .finalMessage();
    assert.deepEqual(streamed.content[0], thinking);
    const next = (signature: string) =>
      client.messages.create({
        model: 'claude-thinking',
        max_tokens: 200,
        messages: [
          { role: 'user', content: 'why?' },
          {
            role: 'assistant',
            content: [
              { ...(thinking as Anthropic.ThinkingBlock), signature },
              { type: 'text', text: 'ok' },
            ],
          },
          { role: 'user', content: 'and then?' },
        ],
      });
    const ok = await next((thinking as Anthropic.ThinkingBlock).signature);
    assert.equal(ok.content[1].type, 'text');
    await assert.rejects(
      next('forged'),
      (e: unknown) => e instanceof Anthropic.BadRequestError && /signature/.test(e.message),
    );
  });

  test('tools: one call, then parallel calls; tool_result turn answers text', async () => {
    const one = await client.messages.create({
      model: 'claude-tools',
      max_tokens: 200,
      tools: [weather, clock],
      messages: [{ role: 'user', content: 'Paris' }],
    });
    assert.equal(one.stop_reason, 'tool_use');
    const call = one.content[0];
    assert.ok(call.type === 'tool_use');
    assert.deepEqual(call.input, { city: 'Paris' });
    const two = await client.messages
      .stream({
        model: 'claude-tools-2',
        max_tokens: 200,
        tools: [weather, clock],
        messages: [{ role: 'user', content: 'Rome' }],
      })
      .finalMessage();
    assert.deepEqual(
      two.content.map((b) => (b.type === 'tool_use' ? [b.name, b.input] : b.type)),
      [
        ['get_weather', { city: 'Rome' }],
        ['get_time', { query: 'Rome' }],
      ],
    );
    const answer = await client.messages.create({
      model: 'claude-tools',
      max_tokens: 200,
      tools: [weather],
      messages: [
        { role: 'user', content: 'Paris' },
        { role: 'assistant', content: [call] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18C' }] },
      ],
    });
    assert.deepEqual(answer.content, [{ type: 'text', text: 'Echo: 18C' }]);
  });

  test('count_tokens matches message usage; cache_control writes then reads', async () => {
    const params = {
      model: 'claude-x',
      system: [
        {
          type: 'text' as const,
          text: 'You are a long system prompt. '.repeat(20),
          cache_control: { type: 'ephemeral' as const },
        },
      ],
      messages: [{ role: 'user' as const, content: 'cache me' }],
    };
    const counted = await client.messages.countTokens(params);
    const first = await client.messages.create({ ...params, max_tokens: 50 });
    const second = await client.messages.create({ ...params, max_tokens: 50 });
    const sys = countTokens(params.system[0].text);
    assert.equal(first.usage.cache_creation_input_tokens, sys);
    assert.equal(first.usage.cache_read_input_tokens, 0);
    assert.equal(second.usage.cache_creation_input_tokens, 0);
    assert.equal(second.usage.cache_read_input_tokens, sys);
    assert.equal(second.usage.input_tokens, countTokens('cache me'));
    assert.equal(counted.input_tokens, sys + countTokens('cache me'));
  });

  test('midstream-error surfaces as an overloaded APIError from the stream', async () => {
    const stream = client.messages.stream({
      model: 'claude-midstream-error',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'break' }],
    });
    await assert.rejects(
      stream.finalMessage(),
      (e: unknown) => e instanceof Anthropic.APIError && /Overloaded/.test(e.message),
    );
  });

  test('scripted fail-429 carries retry-after', async () => {
    await assert.rejects(
      client.messages.create({ model: 'claude-fail-429', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof Anthropic.RateLimitError && e.headers.get('retry-after') === '1',
    );
  });

  test('models list and retrieve', async () => {
    const page = await client.models.list({ limit: 2 });
    assert.equal(page.data.length, 2);
    const all: string[] = [];
    for await (const m of client.models.list({ limit: 3 })) all.push(m.id);
    assert.equal(all.length, 4);
    const one = await client.models.retrieve(all[0]);
    assert.equal(one.id, all[0]);
  });
});

describe('anthropic message batches via the official SDK', () => {
  const req = (custom_id: string, model: string) => ({
    custom_id,
    params: { model, max_tokens: 50, messages: [{ role: 'user' as const, content: `hi ${custom_id}` }] },
  });

  async function waitEnded(id: string) {
    for (let i = 0; i < 250; i++) {
      const b = await client.messages.batches.retrieve(id);
      if (b.processing_status === 'ended') return b;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('batch never ended');
  }

  test('create -> ended, results() with succeeded/errored/expired, delete', async () => {
    const created = await client.messages.batches.create({
      requests: [req('a', 'claude-x'), req('b', 'claude-fail-400'), req('c', 'claude-hang')],
    });
    assert.equal(created.processing_status, 'in_progress');
    assert.equal(created.results_url, null);
    await assert.rejects(client.messages.batches.delete(created.id), Anthropic.BadRequestError);
    const ended = await waitEnded(created.id);
    assert.deepEqual(ended.request_counts, { processing: 0, succeeded: 1, errored: 1, canceled: 0, expired: 1 });
    assert.equal(ended.results_url, `${fake.url}/anthropic/v1/messages/batches/${created.id}/results`);
    const byId = new Map<string, Anthropic.Messages.MessageBatchResult>();
    for await (const line of await client.messages.batches.results(created.id)) byId.set(line.custom_id, line.result);
    const a = byId.get('a');
    assert.ok(a?.type === 'succeeded' && a.message.content[0].type === 'text');
    assert.equal(byId.get('b')?.type, 'errored');
    assert.equal(byId.get('c')?.type, 'expired');
    const deleted = await client.messages.batches.delete(created.id);
    assert.equal(deleted.type, 'message_batch_deleted');
  });

  test('cancel -> canceling -> ended with canceled results; list pages', async () => {
    const created = await client.messages.batches.create({ requests: [req('x', 'claude-x'), req('y', 'claude-x')] });
    const canceling = await client.messages.batches.cancel(created.id);
    assert.equal(canceling.processing_status, 'canceling');
    assert.ok(canceling.cancel_initiated_at);
    await waitEnded(created.id);
    const types: string[] = [];
    for await (const line of await client.messages.batches.results(created.id)) types.push(line.result.type);
    assert.ok(types.includes('canceled'));
    const ids: string[] = [];
    for await (const b of client.messages.batches.list({ limit: 1 })) ids.push(b.id);
    assert.equal(ids[0], created.id);
    assert.ok(ids.length >= 1);
  });
});

describe('anthropic scripted behaviour', () => {
  const ask = (model: string, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}) =>
    client.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'script' }], ...extra });

  test('json and badjson', async () => {
    const good = await ask('claude-json');
    assert.deepEqual(JSON.parse(good.content[0].type === 'text' ? good.content[0].text : ''), {
      answer: 'script',
      ok: true,
    });
    const bad = await ask('claude-badjson');
    assert.throws(() => JSON.parse(bad.content[0].type === 'text' ? bad.content[0].text : ''));
  });

  test('slow-<ms> delays; hang never answers (client timeout)', async () => {
    const t0 = Date.now();
    await ask('claude-slow-120');
    assert.ok(Date.now() - t0 >= 110);
    const quick = new Anthropic({ apiKey: 'sk-x', baseURL: `${fake.url}/anthropic`, maxRetries: 0, timeout: 150 });
    await assert.rejects(
      quick.messages.create({ model: 'claude-hang', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
      Anthropic.APIConnectionTimeoutError,
    );
  });

  test('max_tokens truncates with stop_reason max_tokens; stop_sequences cut the text', async () => {
    const cut = await ask('claude-long', { max_tokens: 3 });
    assert.equal(cut.stop_reason, 'max_tokens');
    assert.equal(cut.usage.output_tokens, 3);
    const stopped = await ask('claude-x', { stop_sequences: ['ipt'] });
    assert.equal(stopped.stop_reason, 'stop_sequence');
    assert.equal(stopped.stop_sequence, 'ipt');
    assert.equal(stopped.content[0].type === 'text' && stopped.content[0].text, 'Echo: scr');
  });
});

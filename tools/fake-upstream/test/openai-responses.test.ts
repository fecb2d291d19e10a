// Responses API through the official `openai` SDK: create, tools, stream, background + poll, replay, cancel, delete, input_items.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { countTokens } from '../script.ts';
import { type FakeUpstream, openaiClient, pollUntil, raw, startTestFake } from './helpers.ts';

let fake: FakeUpstream;
let client: OpenAI;

before(async () => {
  fake = await startTestFake({ batchStepMs: 30 });
  client = openaiClient(fake);
});
after(() => fake.close());

const lookup = {
  type: 'function' as const,
  name: 'lookup',
  strict: false,
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
};

describe('responses', () => {
  test('create: output_text, usage, retrieve', async () => {
    const r = await client.responses.create({ model: 'gpt-4o', instructions: 'Be kind.', input: 'Hello' });
    assert.equal(r.status, 'completed');
    assert.equal(r.output_text, 'Echo: Hello');
    assert.equal(r.usage?.input_tokens, countTokens('Be kind.\nHello'));
    assert.equal(r.usage?.output_tokens, countTokens('Echo: Hello'));
    const again = await client.responses.retrieve(r.id);
    assert.equal(again.id, r.id);
    assert.equal(again.output_text, 'Echo: Hello');
  });

  test('tools: function_call output, then a function_call_output turn via previous_response_id', async () => {
    const r = await client.responses.create({ model: 'gpt-4o-tools', input: 'weather in Oslo', tools: [lookup] });
    const call = r.output[0];
    assert.ok(call.type === 'function_call');
    assert.equal(call.name, 'lookup');
    assert.deepEqual(JSON.parse(call.arguments), { query: 'weather in Oslo' });
    const next = await client.responses.create({
      model: 'gpt-4o-tools',
      previous_response_id: r.id,
      tools: [lookup],
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    assert.equal(next.output[0].type, 'message');
  });

  test('stream: event-named SSE with sequence numbers; the SDK helper accumulates the final response', async () => {
    const res = await raw(fake, 'POST', '/openai/v1/responses', { model: 'gpt-4o', input: 'streamed', stream: true });
    const records = res.text.split('\n\n').filter((x) => x !== '');
    const types = records.map((r) => /^event: (.+)$/m.exec(r)?.[1]);
    assert.deepEqual(types.slice(0, 4), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    assert.equal(types.at(-1), 'response.completed');
    assert.ok(!res.text.includes('[DONE]'));
    const seqs = records.map((r) => JSON.parse(/^data: (.+)$/m.exec(r)?.[1] ?? '{}').sequence_number);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i),
    );

    const stream = client.responses.stream({ model: 'gpt-4o-tools', input: 'x', tools: [lookup] });
    const final = await stream.finalResponse();
    const call = final.output[0];
    assert.ok(call.type === 'function_call');
    assert.deepEqual(JSON.parse(call.arguments), { query: 'x' });

    const text = await client.responses.stream({ model: 'gpt-4o', input: 'hi there' }).finalResponse();
    assert.equal(text.output_text, 'Echo: hi there');
  });

  test('background: queued -> in_progress -> completed by polling; replay with ?stream=true and starting_after', async () => {
    const r = await client.responses.create({ model: 'gpt-4o', input: 'later', background: true });
    assert.equal(r.status, 'queued');
    assert.deepEqual(r.output, []);
    const seen = new Set<string>();
    const done = await pollUntil(
      async () => {
        const x = await client.responses.retrieve(r.id);
        seen.add(String(x.status));
        return x;
      },
      (x) => x.status === 'completed',
    );
    assert.ok(seen.has('in_progress') || seen.has('queued'));
    assert.equal(done.output_text, 'Echo: later');

    const replay = await client.responses.retrieve(r.id, { stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of replay) events.push(e);
    assert.equal(events[0].type, 'response.queued');
    assert.equal(events.at(-1)?.type, 'response.completed');
    const tail: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of await client.responses.retrieve(r.id, { stream: true, starting_after: 3 })) tail.push(e);
    assert.equal(tail[0].sequence_number, 4);
    assert.equal(tail.length, events.length - 4);
  });

  test('cancel a background response; a synchronous one cannot be cancelled', async () => {
    const r = await client.responses.create({ model: 'gpt-4o-hang', input: 'forever', background: true });
    const c = await client.responses.cancel(r.id);
    assert.equal(c.status, 'cancelled');
    assert.equal((await client.responses.retrieve(r.id)).status, 'cancelled');
    const sync = await client.responses.create({ model: 'gpt-4o', input: 'now' });
    await assert.rejects(client.responses.cancel(sync.id), OpenAI.BadRequestError);
  });

  test('delete, then 404', async () => {
    const r = await client.responses.create({ model: 'gpt-4o', input: 'gone' });
    await client.responses.delete(r.id);
    await assert.rejects(client.responses.retrieve(r.id), OpenAI.NotFoundError);
  });

  test('input_items: ids, default desc order, limit/after/before', async () => {
    const r = await client.responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
        { role: 'user', content: 'three' },
      ],
    });
    const all = await client.responses.inputItems.list(r.id);
    assert.equal(all.data.length, 3);
    const texts = (items: typeof all.data) =>
      items.map((i) =>
        i.type === 'message' && Array.isArray(i.content) ? (i.content[0] as { text: string }).text : '',
      );
    assert.deepEqual(texts(all.data), ['three', 'two', 'one']);
    const asc = await client.responses.inputItems.list(r.id, { order: 'asc', limit: 2 });
    assert.deepEqual(texts(asc.data), ['one', 'two']);
    assert.equal(asc.has_more, true);
    const rest = await client.responses.inputItems.list(r.id, { order: 'asc', after: asc.data[1].id });
    assert.deepEqual(texts(rest.data), ['three']);
    const before = await raw(
      fake,
      'GET',
      `/openai/v1/responses/${r.id}/input_items?order=asc&before=${rest.data[0].id}`,
    );
    assert.equal((before.json as { data: unknown[] }).data.length, 2);
  });

  test('midstream-error ends the stream with an error event, no terminal event', async () => {
    const res = await raw(fake, 'POST', '/openai/v1/responses', {
      model: 'gpt-4o-midstream-error',
      input: 'x',
      stream: true,
    });
    assert.match(res.text, /event: error\n/);
    assert.ok(!res.text.includes('response.completed'));
  });
});

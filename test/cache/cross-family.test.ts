// The semantic cache end to end through the official SDKs: an answer written through one family is
// served through the other, as JSON and as a stream, well formed for each SDK's stream helpers;
// headers, the log row and the stats say it was a hit.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { cachedProject, type Json, logRow } from './helpers.ts';

let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

function clients(key: string) {
  return {
    openai: new OpenAI({ apiKey: key, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key, baseURL: `${env.gw.url}/beta`, maxRetries: 0 }),
  };
}

// One model name for both families: the key is the model as requested, so both must name the same.
const MODEL = 'openai/gpt-4o-mini';

describe('cross-family hits', () => {
  test('written through alpha (JSON), served through beta as JSON and as a stream', async () => {
    const p = await cachedProject(env, 'alpha-writes', { mode: 'exact' });
    const { openai, anthropic } = clients(p.key);
    const question = 'What is the capital of France?';
    const first = await openai.chat.completions
      .create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: question }] })
      .withResponse();
    assert.equal(first.response.headers.get('x-svc-cache'), 'MISS');
    const answer = first.data.choices[0].message.content;
    assert.equal(answer, `Echo: ${question}`);

    const hit = await anthropic.messages
      .create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: question }] })
      .withResponse();
    assert.equal(hit.response.headers.get('x-svc-cache'), 'HIT');
    assert.equal(hit.response.headers.get('x-svc-cache-similarity'), '1.0');
    assert.match(hit.response.headers.get('x-svc-cache-age') ?? '', /^\d+$/);
    assert.equal(hit.response.headers.get('x-svc-cost-usd'), '0');
    assert.equal(hit.response.headers.get('x-svc-provider'), 'openai');
    assert.equal(hit.response.headers.get('x-svc-model-used'), 'gpt-4o-mini');
    assert.equal(hit.data.type, 'message');
    assert.deepEqual(hit.data.content, [{ type: 'text', text: answer, citations: undefined }].map(stripUndefined));
    assert.equal(hit.data.stop_reason, 'end_turn');

    const stream = anthropic.messages.stream({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: 'user', content: question }],
    });
    const final = await stream.finalMessage();
    assert.equal(final.content[0].type === 'text' ? final.content[0].text : '', answer);
    assert.equal(final.stop_reason, 'end_turn');

    const row = await logRow(env, hit.response.headers.get('x-svc-request-id'));
    assert.equal(row.cache, 'hit');
    assert.equal(row.cost_usd, 0);
    assert.ok((row.saved_cost_usd as number) > 0, JSON.stringify(row));
    assert.equal(row.cache_similarity, 1);
  });

  test('written through a beta stream with a tool call, served through alpha as JSON and as a stream', async () => {
    const p = await cachedProject(env, 'beta-writes', { mode: 'exact' });
    const { openai, anthropic } = clients(p.key);
    const model = 'openai/gpt-4o-mini-tools';
    const tool = {
      name: 'get_weather',
      description: 'Weather of a city',
      input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
    };
    const question = 'Weather in Paris?';
    const written = await anthropic.messages
      .stream({ model, max_tokens: 200, tools: [tool], messages: [{ role: 'user', content: question }] })
      .finalMessage();
    assert.equal(written.stop_reason, 'tool_use');
    const call = written.content.find((b) => b.type === 'tool_use');
    assert.ok(call && call.type === 'tool_use');

    const alphaTools = [
      {
        type: 'function' as const,
        function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
      },
    ];
    const json = await openai.chat.completions
      .create({ model, max_tokens: 200, tools: alphaTools, messages: [{ role: 'user', content: question }] })
      .withResponse();
    assert.equal(json.response.headers.get('x-svc-cache'), 'HIT');
    const msg = json.data.choices[0];
    assert.equal(msg.finish_reason, 'tool_calls');
    const tc = msg.message.tool_calls?.[0];
    assert.ok(tc && tc.type === 'function');
    assert.equal(tc.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(tc.function.arguments), call.input);

    const streamed = await openai.chat.completions
      .stream({ model, max_tokens: 200, tools: alphaTools, messages: [{ role: 'user', content: question }] })
      .finalChatCompletion();
    assert.equal(streamed.choices[0].finish_reason, 'tool_calls');
    const stc = streamed.choices[0].message.tool_calls?.[0];
    assert.ok(stc && stc.type === 'function');
    assert.deepEqual(JSON.parse(stc.function.arguments), call.input);
  });

  test('an alpha stream is stored and replayed as an alpha stream', async () => {
    const p = await cachedProject(env, 'alpha-streams', { mode: 'exact' });
    const { openai } = clients(p.key);
    const body = {
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: 'Tell me something long' }],
    };
    const live = await openai.chat.completions.stream(body).finalChatCompletion();
    const replay = await openai.chat.completions.stream(body).finalChatCompletion();
    assert.equal(replay.choices[0].message.content, live.choices[0].message.content);
    assert.equal(replay.choices[0].finish_reason, 'stop');
    const s = await waitForStats(p.id, (x) => x.hits === 1 && x.misses === 1 && x.entries === 1);
    assert.equal(s.entries, 1);
    assert.equal(s.hits, 1);
    assert.equal(s.misses, 1);
    assert.equal(s.hit_rate, 0.5);
  });
});

test('the usual SDK calls share entries: alpha sends no max_tokens, beta must send one', async () => {
  const p = await cachedProject(env, 'usual-calls');
  const { openai, anthropic } = clients(p.key);
  const question = 'Which river runs through Paris?';
  const first = await openai.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: question }] })
    .withResponse();
  assert.equal(first.response.headers.get('x-svc-cache'), 'MISS');
  const tokens = first.data.usage?.completion_tokens ?? 0;
  assert.ok(tokens > 2, `the answer needs a few tokens for the cut case: ${tokens}`);
  // A limit the stored answer fits in: served, whatever the limit.
  for (const max_tokens of [tokens, 4096]) {
    const hit = await anthropic.messages
      .create({ model: MODEL, max_tokens, messages: [{ role: 'user', content: question }] })
      .withResponse();
    assert.equal(hit.response.headers.get('x-svc-cache'), 'HIT', `max_tokens ${max_tokens}`);
  }
  // A limit below the stored answer's length: that answer was never given under it, so upstream.
  const cut = await anthropic.messages
    .create({ model: MODEL, max_tokens: tokens - 1, messages: [{ role: 'user', content: question }] })
    .withResponse();
  assert.equal(cut.response.headers.get('x-svc-cache'), 'MISS');
  assert.equal(cut.data.stop_reason, 'max_tokens');
  // The cut answer was not stored over the whole one: an unlimited call still gets the whole answer.
  const again = await openai.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: question }] })
    .withResponse();
  assert.equal(again.response.headers.get('x-svc-cache'), 'HIT');
  assert.equal(again.data.choices[0].message.content, first.data.choices[0].message.content);
});

test('a beta stream passed through to the anthropic wire is stored and served through alpha', async () => {
  const p = await cachedProject(env, 'beta-passthrough', { mode: 'exact' });
  const { openai, anthropic } = clients(p.key);
  const model = 'anthropic/claude-3-5-haiku-latest';
  const question = 'Why is the sea salty?';
  const written = await anthropic.messages
    .stream({ model, max_tokens: 100, messages: [{ role: 'user', content: question }] })
    .finalMessage();
  const text = written.content[0].type === 'text' ? written.content[0].text : '';
  assert.ok(text.length > 0);
  const hit = await openai.chat.completions
    .create({ model, max_tokens: 100, messages: [{ role: 'user', content: question }] })
    .withResponse();
  assert.equal(hit.response.headers.get('x-svc-cache'), 'HIT');
  assert.equal(hit.response.headers.get('x-svc-provider'), 'anthropic');
  assert.equal(hit.data.choices[0].message.content, text);
  assert.equal(hit.data.choices[0].finish_reason, 'stop');
});

async function waitForStats(projectId: string, done: (s: Json) => boolean): Promise<Json> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await api(env.gw, 'GET', `/manage/v1/projects/${projectId}/cache`);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    if (done(r.json as Json) || Date.now() > deadline) return r.json as Json;
    await new Promise((res) => setTimeout(res, 50));
  }
}

function stripUndefined<T extends object>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

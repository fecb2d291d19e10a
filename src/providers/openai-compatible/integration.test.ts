// Smoke test against the fake upstream (tools/fake-upstream) through the real executor.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useFakeUpstream } from '../../../test/helpers/fake-upstream.ts';
import type { ChatRequest } from '../../ir/types.ts';
import { sendUpstream } from '../http.ts';
import { assertStreamInvariants } from '../shared/fixtures.ts';
import { collect, helloRequest, runChat, runStream } from '../shared/integration-support.ts';
import type { Target } from '../types.ts';
import { openaiCompatibleAdapter } from './index.ts';

const fake = useFakeUpstream();

const VENDORS = [
  ['openai', '/openai/v1', 'gpt-4o-mini'],
  ['together', '/together/v1', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'],
  ['fireworks', '/fireworks/inference/v1', 'accounts/fireworks/models/llama-v3p1-8b-instruct'],
  ['azure-openai', '/azure', 'gpt-4o-mini'],
] as const;

function target(vendor: (typeof VENDORS)[number][0], prefix: string, model: string): Target {
  return { vendor, model, credential: { apiKey: 'sk-test-0001', baseUrl: `${fake.url}${prefix}` } };
}

const req: ChatRequest = helloRequest('x');

const toolReq: ChatRequest = {
  ...req,
  tools: [
    { name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
    { name: 'get_time', inputSchema: { type: 'object', properties: {} } },
  ],
};

for (const [vendor, prefix, model] of VENDORS) {
  test(`${vendor}: chat, stream, tools, embeddings, errors against the fake`, async () => {
    const a = openaiCompatibleAdapter(vendor);
    const t = target(vendor, prefix, model);
    const chat = await runChat(a, req, t);
    assert.ok(chat.ok, JSON.stringify(chat));
    assert.deepEqual(chat.response.content, [{ type: 'text', text: 'Echo: hello there' }]);
    assert.equal(chat.response.stopReason, 'end_turn');
    assert.ok(chat.response.usage.input > 0);

    const events = await runStream(a, req, t);
    assertStreamInvariants(events);
    assert.equal(collect(events).text, 'Echo: hello there');
    assert.ok(events.some((e) => e.type === 'usage'));

    const tools = await runStream(a, toolReq, { ...t, model: `${model}-tools-2` });
    assertStreamInvariants(tools);
    const { args } = collect(tools);
    assert.equal(args.length, 2);
    for (const text of args) assert.equal(typeof JSON.parse(text), 'object');
    const last = tools[tools.length - 1];
    assert.equal(last.type === 'stop' ? last.stopReason : last.type, 'tool_use');

    const failed = await runChat(a, req, { ...t, model: `${model}-fail-429` });
    assert.ok(!failed.ok);
    assert.equal(failed.error.status, 429);
    assert.equal(failed.error.kind, 'rate_limit');
    assert.equal(failed.error.retryable, true);
  });
}

test('embeddings through openai and azure', async () => {
  for (const [vendor, prefix] of [
    ['openai', '/openai/v1'],
    ['azure-openai', '/azure'],
  ] as const) {
    const a = openaiCompatibleAdapter(vendor);
    const t = target(vendor, prefix, 'text-embedding-3-small');
    const ereq = { model: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 64 };
    const [spec] = await a.embeddingRequests(ereq, t);
    const res = await sendUpstream(spec);
    const text = await res.body.text();
    assert.equal(res.status, 200, text);
    const out = a.decodeEmbeddingResponses([JSON.parse(text)], ereq, t);
    assert.equal(out.vectors.length, 2);
    assert.equal(out.vectors[0].length, 64);
  }
});

test('bad key is reported as authentication', async () => {
  const a = openaiCompatibleAdapter('openai');
  const t = target('openai', '/openai/v1', 'gpt-4o-mini');
  const res = await sendUpstream(await a.verifyKeyRequest({ ...t.credential, apiKey: 'sk-bad-key' }));
  const info = a.decodeError(res.status, await res.body.text(), res.headers);
  assert.equal(info.kind, 'authentication');
  const ok = await sendUpstream(await a.verifyKeyRequest(t.credential));
  await ok.body.dump();
  assert.equal(ok.status, 200);
});

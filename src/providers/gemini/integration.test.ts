// Smoke test of the Gemini adapter against the fake upstream through the real executor.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useFakeUpstream } from '../../../test/helpers/fake-upstream.ts';
import type { ChatRequest } from '../../ir/types.ts';
import { sendUpstream } from '../http.ts';
import { answerToolCall, callChat, helloRequest, streamOk } from '../shared/integration-support.ts';
import type { Target } from '../types.ts';
import { geminiAdapter } from './index.ts';

const fake = useFakeUpstream();

const target = (model: string, apiKey = 'sk-test'): Target => ({
  vendor: 'google',
  model,
  credential: { apiKey, baseUrl: `${fake.url}/google` },
});

const request = (over: Partial<ChatRequest> = {}): ChatRequest => helloRequest('gemini-2.5-flash', over);
const call = (req: ChatRequest, t: Target) => callChat(geminiAdapter, req, t);
const stream = (req: ChatRequest, t: Target) => streamOk(geminiAdapter, req, t);

const weatherTool = {
  name: 'get_weather',
  description: 'Weather by city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

describe('gemini adapter x fake upstream', () => {
  it('chat round trip', async () => {
    const t = target('gemini-2.5-flash');
    const res = await call(request(), t);
    assert.equal(res.status, 200, res.text);
    const decoded = geminiAdapter.decodeChatResponse(JSON.parse(res.text), t);
    assert.equal(decoded.stopReason, 'end_turn');
    assert.ok(decoded.content.some((b) => b.type === 'text' && b.text.length > 0));
    assert.ok(decoded.usage.input > 0 && decoded.usage.output > 0);
  });

  it('stream: contiguous blocks, exactly one stop', async () => {
    const events = await stream(request(), target('gemini-2.5-flash-long'));
    assert.equal(events[0].type, 'start');
    assert.equal(events.filter((e) => e.type === 'stop').length, 1);
    assert.equal(events[events.length - 1].type, 'stop');
    const text = events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
    assert.ok(text.length > 0);
  });

  it('tool call, then a second turn carrying the tool result', async () => {
    const t = target('gemini-2.5-flash-tools');
    const first = await call(request({ tools: [weatherTool], toolChoice: { type: 'auto' } }), t);
    assert.equal(first.status, 200, first.text);
    const decoded = geminiAdapter.decodeChatResponse(JSON.parse(first.text), t);
    assert.equal(decoded.stopReason, 'tool_use');
    const use = decoded.content.find((b) => b.type === 'tool_use');
    assert.ok(use && use.type === 'tool_use');
    const second = await call(
      answerToolCall(request({ tools: [weatherTool] }), decoded.content, use.id),
      target('gemini-2.5-flash'),
    );
    assert.equal(second.status, 200, second.text);
    const events = await stream(request({ tools: [weatherTool] }), t);
    assert.ok(events.some((e) => e.type === 'block_start' && e.block.type === 'tool_use'));
    const stop = events.find((e) => e.type === 'stop');
    assert.equal(stop?.type === 'stop' ? stop.stopReason : undefined, 'tool_use');
  });

  it('thinking with tools: thought parts decode and the next turn (signatures echoed) is accepted', async () => {
    const t = target('gemini-2.5-flash-thinking-tools');
    const req = request({ tools: [weatherTool], params: { thinking: { type: 'enabled', budgetTokens: 256 } } });
    const first = await call(req, t);
    assert.equal(first.status, 200, first.text);
    const decoded = geminiAdapter.decodeChatResponse(JSON.parse(first.text), t);
    assert.ok(decoded.content.some((b) => b.type === 'thinking'));
    const use = decoded.content.find((b) => b.type === 'tool_use');
    assert.ok(use && use.type === 'tool_use');
    const next = await call(answerToolCall(req, decoded.content, use.id), t);
    assert.equal(next.status, 200, next.text);
    const events = await stream(req, t);
    assert.ok(events.some((e) => e.type === 'thinking_delta'));
  });

  it('json_schema request is accepted', async () => {
    const res = await call(
      request({
        params: {
          responseFormat: {
            type: 'json_schema',
            name: 'a',
            schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
          },
        },
      }),
      target('gemini-2.5-flash-json'),
    );
    assert.equal(res.status, 200, res.text);
  });

  it('mid-stream error object becomes an error event and no stop', async () => {
    const events = await stream(request(), target('gemini-2.5-flash-midstream-error'));
    assert.equal(events[events.length - 1].type, 'error');
    assert.equal(events.filter((e) => e.type === 'stop').length, 0);
  });

  it('errors: scripted 429 and a bad key', async () => {
    const limited = await call(request(), target('gemini-fail-429'));
    const info = geminiAdapter.decodeError(limited.status, limited.text, limited.headers);
    assert.deepEqual([info.status, info.kind, info.retryable], [429, 'rate_limit', true]);
    const bad = await call(request(), target('gemini-2.5-flash', 'gm-bad-key'));
    assert.equal(geminiAdapter.decodeError(bad.status, bad.text, bad.headers).kind, 'authentication');
  });

  it('verifyKey and embeddings with outputDimensionality', async () => {
    const verify = await sendUpstream(await geminiAdapter.verifyKeyRequest(target('x').credential));
    assert.equal(verify.status, 200, await verify.body.text());
    const t = target('gemini-embedding-001');
    const req = { model: t.model, input: ['a', 'bb'], dimensions: 64 };
    const [spec] = await geminiAdapter.embeddingRequests(req, t);
    const res = await sendUpstream(spec);
    const text = await res.body.text();
    assert.equal(res.status, 200, text);
    const decoded = geminiAdapter.decodeEmbeddingResponses([JSON.parse(text)], req, t);
    assert.deepEqual(
      decoded.vectors.map((v) => v.length),
      [64, 64],
    );
  });
});

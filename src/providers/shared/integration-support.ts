import assert from 'node:assert/strict';
// Drives an adapter end to end through the real executor (src/providers/http.ts); tests only.
import type { ChatRequest, ChatResponse, StreamEvent, UpstreamErrorInfo } from '../../ir/types.ts';
import { sendUpstream, type UpstreamResponse, upstreamEvents } from '../http.ts';
import type { ChatAdapter, Target } from '../types.ts';
import { assertStreamInvariants } from './fixtures.ts';

export type ChatOutcome = { ok: true; response: ChatResponse } | { ok: false; error: UpstreamErrorInfo };

export async function runChat(adapter: ChatAdapter, req: ChatRequest, target: Target): Promise<ChatOutcome> {
  const res = await sendUpstream(await adapter.chatRequest({ ...req, stream: false }, target));
  const text = await res.body.text();
  if (res.status >= 400) return { ok: false, error: adapter.decodeError(res.status, text, res.headers) };
  return { ok: true, response: adapter.decodeChatResponse(JSON.parse(text), target) };
}

/** The upstream's answer to one chat call, read whole and left undecoded. */
export async function callChat(
  adapter: ChatAdapter,
  req: ChatRequest,
  target: Target,
): Promise<{ status: number; text: string; headers: UpstreamResponse['headers'] }> {
  const res = await sendUpstream(await adapter.chatRequest(req, target));
  return { status: res.status, text: await res.body.text(), headers: res.headers };
}

/** A streamed call's IR events; an error status becomes one error event. */
export async function runStream(adapter: ChatAdapter, req: ChatRequest, target: Target): Promise<StreamEvent[]> {
  const res = await sendUpstream(await adapter.chatRequest({ ...req, stream: true }, target));
  if (res.status >= 400) {
    const error = adapter.decodeError(res.status, await res.body.text(), res.headers);
    return [{ type: 'error', error }];
  }
  return decodeStream(adapter, res, target);
}

/** A streamed call the upstream must accept (status 200), decoded to IR events. */
export async function streamOk(adapter: ChatAdapter, req: ChatRequest, target: Target): Promise<StreamEvent[]> {
  const res = await sendUpstream(await adapter.chatRequest({ ...req, stream: true }, target));
  assert.equal(res.status, 200);
  return decodeStream(adapter, res, target);
}

async function decodeStream(adapter: ChatAdapter, res: UpstreamResponse, target: Target): Promise<StreamEvent[]> {
  const decoder = adapter.newStreamDecoder(target);
  const out: StreamEvent[] = [];
  for await (const ev of upstreamEvents(res.body, adapter.streamFraming)) out.push(...decoder.push(ev));
  out.push(...decoder.end());
  return out;
}

/** "hello there" after a short system prompt, 50 tokens at most, no tools. */
export function helloRequest(model: string, over: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model,
    system: [{ type: 'text', text: 'Be brief.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
    tools: [],
    params: { maxTokens: 50 },
    stream: false,
    ...over,
  };
}

/** `req` continued by the assistant's turn and a user turn answering its tool call with `18C`. */
export function answerToolCall(req: ChatRequest, answer: ChatResponse['content'], toolUseId: string): ChatRequest {
  return {
    ...req,
    messages: [
      ...req.messages,
      { role: 'assistant', content: answer },
      { role: 'user', content: [{ type: 'tool_result', toolUseId, content: [{ type: 'text', text: '18C' }] }] },
    ],
  };
}

/** Concatenated text deltas and tool arguments, per block index. */
export function collect(events: StreamEvent[]): { text: string; args: string[] } {
  let text = '';
  const args: string[] = [];
  for (const e of events) {
    if (e.type === 'text_delta') text += e.text;
    if (e.type === 'block_start' && e.block.type === 'tool_use') args[e.index] = '';
    if (e.type === 'tool_args_delta') args[e.index] = (args[e.index] ?? '') + e.partialJson;
  }
  return { text, args: args.filter((a) => a !== undefined) };
}

const smokeRequest: ChatRequest = {
  model: 'x',
  system: [{ type: 'text', text: 'Be brief.' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
  tools: [
    { name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
    { name: 'get_time', inputSchema: { type: 'object', properties: {} } },
  ],
  params: {},
  stream: false,
};

/**
 * Chat, stream, two tool calls, thinking and a scripted 429 through one adapter, against the fake
 * upstream (its model-name suffixes script the answers).
 */
export async function smokeChat(adapter: ChatAdapter, t: Target): Promise<void> {
  const chat = await runChat(adapter, smokeRequest, t);
  assert.ok(chat.ok, JSON.stringify(chat));
  assert.deepEqual(chat.response.content, [{ type: 'text', text: 'Echo: hello there' }]);
  assert.equal(chat.response.stopReason, 'end_turn');

  const events = await runStream(adapter, smokeRequest, t);
  assertStreamInvariants(events);
  assert.equal(collect(events).text, 'Echo: hello there');

  const tools = await runStream(adapter, smokeRequest, { ...t, model: `${t.model}-tools-2` });
  assertStreamInvariants(tools);
  const { args } = collect(tools);
  assert.equal(args.length, 2);
  for (const text of args) assert.equal(typeof JSON.parse(text), 'object');

  const thinking = await runStream(
    adapter,
    { ...smokeRequest, tools: [], params: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
    { ...t, model: `${t.model}-thinking` },
  );
  assertStreamInvariants(thinking);
  assert.ok(thinking.some((e) => e.type === 'signature_delta'));

  const failed = await runChat(adapter, smokeRequest, { ...t, model: `${t.model}-fail-429` });
  assert.ok(!failed.ok);
  assert.equal(failed.error.status, 429);
  assert.equal(failed.error.kind, 'rate_limit');
  assert.equal(failed.error.retryable, true);
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertErrorEnd, stopEvent, textBlockEvents, toolBlockEvents } from '../../ir/test-kit.ts';
import type { StreamEvent } from '../../ir/types.ts';
import { assertStreamInvariants, fixtureLines, replay } from '../shared/fixtures.ts';
import type { UpstreamEvent } from '../types.ts';
import { newOpenAIStreamDecoder } from './stream-decoder.ts';

const sse = (name: string): UpstreamEvent[] => fixtureLines('openai-compatible', name).map((data) => ({ data }));

/** A recorded stream through a fresh decoder, checked against the IR stream rules. */
function decoded(name: string): StreamEvent[] {
  const events = replay(newOpenAIStreamDecoder(), sse(name));
  assertStreamInvariants(events);
  return events;
}

test('text stream: usage chunk after finish still precedes the stop', () => {
  assert.deepEqual(decoded('stream-text.chunks.txt'), [
    { type: 'start', id: 'chatcmpl-1', model: 'gpt-4o' },
    ...textBlockEvents(0, 'Hel', 'lo'),
    { type: 'usage', usage: { input: 9, output: 2 } },
    stopEvent('end_turn', 'stop'),
  ]);
});

test('tool stream: one block per call, `{}` when a call streamed no arguments', () => {
  assert.deepEqual(decoded('stream-tools.chunks.txt'), [
    { type: 'start', id: 'chatcmpl-2', model: 'gpt-4o' },
    ...toolBlockEvents(0, 'call_a', 'get_weather', '{"city":', '"Paris"}'),
    ...toolBlockEvents(1, 'call_b', 'get_time', '{}'),
    { type: 'usage', usage: { input: 30, output: 12 } },
    stopEvent('tool_use', 'tool_calls'),
  ]);
});

test('together: usage on a chunk that also has choices, eos -> end_turn', () => {
  assert.deepEqual(decoded('stream-together.chunks.txt'), [
    { type: 'start', id: 'tg-1', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' },
    ...textBlockEvents(0, 'Hi', '!'),
    { type: 'usage', usage: { input: 7, output: 2 } },
    stopEvent('end_turn', 'eos'),
  ]);
});

test('azure: prompt-filter chunk with empty choices is skipped; content_filter finish', () => {
  assert.deepEqual(decoded('stream-azure.chunks.txt'), [
    { type: 'start', id: 'chatcmpl-az', model: 'gpt-4o-2024-08-06' },
    ...textBlockEvents(0, 'Ok'),
    stopEvent('content_filter'),
  ]);
});

test('mid-stream error ends the stream with an error and no stop', () => {
  const events = decoded('stream-error.chunks.txt');
  assert.equal(events.length, 4);
  assertErrorEnd(events, {
    status: 500,
    kind: 'server',
    retryable: true,
    message: 'The server had an error while processing your request.',
  });
});

test('truncated stream: end() closes the open block and emits the one stop', () => {
  const lines = sse('stream-text.chunks.txt').slice(0, 2);
  const events = replay(newOpenAIStreamDecoder(), lines);
  assertStreamInvariants(events);
  assert.deepEqual(events.slice(-2), [
    { type: 'block_stop', index: 0 },
    { type: 'stop', stopReason: 'end_turn', stopSequence: null },
  ]);
});

test('reasoning deltas open a thinking block that closes before text', () => {
  const chunk = (delta: object, finish: string | null = null) => ({
    data: JSON.stringify({ id: 'r', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }),
  });
  const events = replay(newOpenAIStreamDecoder(), [
    chunk({ reasoning_content: 'think' }),
    { data: JSON.stringify({ id: 'r', model: 'm', error: null, choices: [{ index: 0, delta: { content: 'say' } }] }) },
    chunk({}, 'stop'),
  ]);
  assertStreamInvariants(events);
  assert.deepEqual(
    events.map((e) => e.type),
    ['start', 'block_start', 'thinking_delta', 'block_stop', 'block_start', 'text_delta', 'block_stop', 'stop'],
  );
});

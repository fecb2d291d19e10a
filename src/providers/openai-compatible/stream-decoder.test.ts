import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStreamInvariants, fixtureLines, replay } from '../shared/fixtures.ts';
import type { UpstreamEvent } from '../types.ts';
import { newOpenAIStreamDecoder } from './stream-decoder.ts';

const sse = (name: string): UpstreamEvent[] => fixtureLines('openai-compatible', name).map((data) => ({ data }));

test('text stream: usage chunk after finish still precedes the stop', () => {
  const events = replay(newOpenAIStreamDecoder(), sse('stream-text.chunks.txt'));
  assertStreamInvariants(events);
  assert.deepEqual(events, [
    { type: 'start', id: 'chatcmpl-1', model: 'gpt-4o' },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'Hel' },
    { type: 'text_delta', index: 0, text: 'lo' },
    { type: 'block_stop', index: 0 },
    { type: 'usage', usage: { input: 9, output: 2 } },
    { type: 'stop', stopReason: 'end_turn', rawStopReason: 'stop', stopSequence: null },
  ]);
});

test('tool stream: one block per call, `{}` when a call streamed no arguments', () => {
  const events = replay(newOpenAIStreamDecoder(), sse('stream-tools.chunks.txt'));
  assertStreamInvariants(events);
  assert.deepEqual(events, [
    { type: 'start', id: 'chatcmpl-2', model: 'gpt-4o' },
    { type: 'block_start', index: 0, block: { type: 'tool_use', id: 'call_a', name: 'get_weather' } },
    { type: 'tool_args_delta', index: 0, partialJson: '{"city":' },
    { type: 'tool_args_delta', index: 0, partialJson: '"Paris"}' },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'tool_use', id: 'call_b', name: 'get_time' } },
    { type: 'tool_args_delta', index: 1, partialJson: '{}' },
    { type: 'block_stop', index: 1 },
    { type: 'usage', usage: { input: 30, output: 12 } },
    { type: 'stop', stopReason: 'tool_use', rawStopReason: 'tool_calls', stopSequence: null },
  ]);
});

test('together: usage on a chunk that also has choices, eos -> end_turn', () => {
  const events = replay(newOpenAIStreamDecoder(), sse('stream-together.chunks.txt'));
  assertStreamInvariants(events);
  assert.deepEqual(events, [
    { type: 'start', id: 'tg-1', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'Hi' },
    { type: 'text_delta', index: 0, text: '!' },
    { type: 'block_stop', index: 0 },
    { type: 'usage', usage: { input: 7, output: 2 } },
    { type: 'stop', stopReason: 'end_turn', rawStopReason: 'eos', stopSequence: null },
  ]);
});

test('azure: prompt-filter chunk with empty choices is skipped; content_filter finish', () => {
  const events = replay(newOpenAIStreamDecoder(), sse('stream-azure.chunks.txt'));
  assertStreamInvariants(events);
  assert.deepEqual(events, [
    { type: 'start', id: 'chatcmpl-az', model: 'gpt-4o-2024-08-06' },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'Ok' },
    { type: 'block_stop', index: 0 },
    { type: 'stop', stopReason: 'content_filter', rawStopReason: 'content_filter', stopSequence: null },
  ]);
});

test('mid-stream error ends the stream with an error and no stop', () => {
  const events = replay(newOpenAIStreamDecoder(), sse('stream-error.chunks.txt'));
  assertStreamInvariants(events);
  const last = events[events.length - 1];
  assert.equal(events.length, 4);
  assert.equal(last.type, 'error');
  if (last.type !== 'error') return;
  assert.equal(last.error.status, 500);
  assert.equal(last.error.kind, 'server');
  assert.equal(last.error.retryable, true);
  assert.equal(last.error.message, 'The server had an error while processing your request.');
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

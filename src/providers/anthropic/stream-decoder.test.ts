import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertErrorEnd, stopEvent, textBlockEvents, thinkingBlockEvents, toolBlockEvents } from '../../ir/test-kit.ts';
import type { StreamEvent } from '../../ir/types.ts';
import { anthropicSseFixture, assertStreamInvariants, replay } from '../shared/fixtures.ts';
import type { UpstreamEvent } from '../types.ts';
import { newAnthropicStreamDecoder } from './stream-decoder.ts';

const sse = anthropicSseFixture;

const expectedThinkingTools: StreamEvent[] = [
  {
    type: 'start',
    id: 'msg_01S',
    model: 'claude-sonnet-4-5',
    usage: { input: 25, output: 1, cacheRead: 7, cacheWrite: 0 },
  },
  ...thinkingBlockEvents(0, ['Let me see.'], 'EqQB'),
  ...textBlockEvents(1, 'Checking'),
  ...toolBlockEvents(2, 'toolu_01T', 'get_weather', '{"city": "Pa', 'ris"}'),
  ...toolBlockEvents(3, 'toolu_01U', 'get_time', '{}'),
  { type: 'usage', usage: { output: 89 } },
  stopEvent('tool_use'),
];

test('thinking, text and tool blocks; ping ignored; empty tool input becomes {}', () => {
  const events = replay(newAnthropicStreamDecoder(), sse('stream-thinking-tools.chunks.txt'));
  assertStreamInvariants(events);
  assert.deepEqual(events, expectedThinkingTools);
});

test('mid-stream overloaded error: error event, retryable 529, no stop', () => {
  const events = replay(newAnthropicStreamDecoder(), sse('stream-overloaded.chunks.txt'));
  assertStreamInvariants(events);
  assertErrorEnd(events, { status: 529, kind: 'overloaded', retryable: true, message: 'Overloaded' });
});

test('truncated stream: end() closes the open block and emits end_turn once', () => {
  const events = replay(newAnthropicStreamDecoder(), sse('stream-overloaded.chunks.txt').slice(0, 3));
  assertStreamInvariants(events);
  assert.deepEqual(events.slice(-2), [
    { type: 'block_stop', index: 0 },
    { type: 'stop', stopReason: 'end_turn', stopSequence: null },
  ]);
});

test('skipped server-tool blocks leave no gap in block indexes', () => {
  const ev = (data: object): UpstreamEvent => ({ data: JSON.stringify(data) });
  const events = replay(newAnthropicStreamDecoder(), [
    ev({ type: 'message_start', message: { id: 'm', model: 'c', usage: { input_tokens: 1 } } }),
    ev({ type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 's', name: 'web' } }),
    ev({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"q":1}' } }),
    ev({ type: 'content_block_stop', index: 0 }),
    ev({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: 'Hi' } }),
    ev({ type: 'content_block_stop', index: 1 }),
    ev({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }),
    ev({ type: 'message_stop' }),
  ]);
  assertStreamInvariants(events);
  assert.deepEqual(events.slice(1, 4), textBlockEvents(0, 'Hi'));
});

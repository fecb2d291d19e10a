import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StreamEvent } from '../../ir/types.ts';
import { assertStreamInvariants, fixtureLines, replay } from '../shared/fixtures.ts';
import type { UpstreamEvent } from '../types.ts';
import { newAnthropicStreamDecoder } from './stream-decoder.ts';

/** Fixture lines are `event: <name>|<data JSON>`, one SSE event each. */
function sse(name: string): UpstreamEvent[] {
  return fixtureLines('anthropic', name).map((line) => {
    const bar = line.indexOf('|');
    return { event: line.slice('event: '.length, bar), data: line.slice(bar + 1) };
  });
}

const expectedThinkingTools: StreamEvent[] = [
  {
    type: 'start',
    id: 'msg_01S',
    model: 'claude-sonnet-4-5',
    usage: { input: 25, output: 1, cacheRead: 7, cacheWrite: 0 },
  },
  { type: 'block_start', index: 0, block: { type: 'thinking' } },
  { type: 'thinking_delta', index: 0, text: 'Let me see.' },
  { type: 'signature_delta', index: 0, signature: 'EqQB' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'text_delta', index: 1, text: 'Checking' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'tool_use', id: 'toolu_01T', name: 'get_weather' } },
  { type: 'tool_args_delta', index: 2, partialJson: '{"city": "Pa' },
  { type: 'tool_args_delta', index: 2, partialJson: 'ris"}' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { type: 'tool_use', id: 'toolu_01U', name: 'get_time' } },
  { type: 'tool_args_delta', index: 3, partialJson: '{}' },
  { type: 'block_stop', index: 3 },
  { type: 'usage', usage: { output: 89 } },
  { type: 'stop', stopReason: 'tool_use', rawStopReason: 'tool_use', stopSequence: null },
];

test('thinking, text and tool blocks; ping ignored; empty tool input becomes {}', () => {
  const events = replay(newAnthropicStreamDecoder(), sse('stream-thinking-tools.chunks.txt'));
  assertStreamInvariants(events);
  assert.deepEqual(events, expectedThinkingTools);
});

test('mid-stream overloaded error: error event, retryable 529, no stop', () => {
  const events = replay(newAnthropicStreamDecoder(), sse('stream-overloaded.chunks.txt'));
  assertStreamInvariants(events);
  const last = events[events.length - 1];
  assert.equal(last.type, 'error');
  if (last.type !== 'error') return;
  assert.equal(last.error.status, 529);
  assert.equal(last.error.kind, 'overloaded');
  assert.equal(last.error.retryable, true);
  assert.equal(last.error.message, 'Overloaded');
  assert.equal(events.filter((e) => e.type === 'stop').length, 0);
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
  assert.deepEqual(events.slice(1, 4), [
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'Hi' },
    { type: 'block_stop', index: 0 },
  ]);
});

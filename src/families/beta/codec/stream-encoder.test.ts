import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamEvent } from '../../../ir/types.ts';
import { BetaStreamEncoder } from './stream-encoder.ts';

function run(events: StreamEvent[]): string[] {
  const enc = new BetaStreamEncoder({ id: 'msg_9', model: 'gw' });
  return [...events.flatMap((e) => enc.push(e)), ...enc.end()];
}

const ev = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
const start = (usage: object) =>
  ev('message_start', {
    message: {
      id: 'msg_9',
      type: 'message',
      role: 'assistant',
      model: 'gw',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
const blockStart = (index: number, block: object) => ev('content_block_start', { index, content_block: block });
const delta = (index: number, d: object) => ev('content_block_delta', { index, delta: d });
const stop = (index: number) => ev('content_block_stop', { index });
const messageStop = ev('message_stop', {});

describe('BetaStreamEncoder', () => {
  it('encodes a text stream', () => {
    assert.deepEqual(
      run([
        { type: 'start', id: 'up', model: 'up', usage: { input: 5 } },
        { type: 'block_start', index: 0, block: { type: 'text' } },
        { type: 'text_delta', index: 0, text: 'Hi' },
        { type: 'text_delta', index: 0, text: '!' },
        { type: 'block_stop', index: 0 },
        { type: 'stop', stopReason: 'end_turn' },
        { type: 'usage', usage: { output: 2 } },
      ]),
      [
        start({ input_tokens: 5, output_tokens: 0 }),
        blockStart(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'Hi' }),
        delta(0, { type: 'text_delta', text: '!' }),
        stop(0),
        ev('message_delta', {
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { input_tokens: 5, output_tokens: 2 },
        }),
        messageStop,
      ],
    );
  });

  it('encodes thinking then text with contiguous indexes, skipping an empty text block', () => {
    assert.deepEqual(
      run([
        { type: 'start', id: 'up', model: 'up', usage: { input: 5, cacheRead: 3 } },
        { type: 'block_start', index: 0, block: { type: 'text' } },
        { type: 'block_stop', index: 0 },
        { type: 'block_start', index: 1, block: { type: 'thinking' } },
        { type: 'thinking_delta', index: 1, text: 'plan' },
        { type: 'signature_delta', index: 1, signature: 'sig' },
        { type: 'block_stop', index: 1 },
        { type: 'block_start', index: 2, block: { type: 'text' } },
        { type: 'text_delta', index: 2, text: 'Done' },
        { type: 'block_stop', index: 2 },
        { type: 'usage', usage: { output: 9 } },
        { type: 'stop', stopReason: 'stop_sequence', stopSequence: 'END' },
      ]),
      [
        start({ input_tokens: 5, output_tokens: 0, cache_read_input_tokens: 3 }),
        blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
        delta(0, { type: 'thinking_delta', thinking: 'plan' }),
        delta(0, { type: 'signature_delta', signature: 'sig' }),
        stop(0),
        blockStart(1, { type: 'text', text: '' }),
        delta(1, { type: 'text_delta', text: 'Done' }),
        stop(1),
        ev('message_delta', {
          delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' },
          usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 3 },
        }),
        messageStop,
      ],
    );
  });

  it('encodes parallel tool calls as tool_use blocks with input_json_delta', () => {
    assert.deepEqual(
      run([
        { type: 'start', id: 'up', model: 'up' },
        { type: 'block_start', index: 0, block: { type: 'tool_use', id: 'call_a', name: 'weather' } },
        { type: 'tool_args_delta', index: 0, partialJson: '' },
        { type: 'tool_args_delta', index: 0, partialJson: '{"city":' },
        { type: 'tool_args_delta', index: 0, partialJson: '"Paris"}' },
        { type: 'block_stop', index: 0 },
        { type: 'block_start', index: 1, block: { type: 'tool_use', id: 'call_b', name: 'time' } },
        { type: 'tool_args_delta', index: 1, partialJson: '{}' },
        { type: 'stop', stopReason: 'tool_use' },
        { type: 'usage', usage: { input: 30, output: 12 } },
      ]),
      [
        start({ input_tokens: 0, output_tokens: 0 }),
        blockStart(0, { type: 'tool_use', id: 'call_a', name: 'weather', input: {} }),
        delta(0, { type: 'input_json_delta', partial_json: '{"city":' }),
        delta(0, { type: 'input_json_delta', partial_json: '"Paris"}' }),
        stop(0),
        blockStart(1, { type: 'tool_use', id: 'call_b', name: 'time', input: {} }),
        delta(1, { type: 'input_json_delta', partial_json: '{}' }),
        stop(1),
        ev('message_delta', {
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { input_tokens: 30, output_tokens: 12 },
        }),
        messageStop,
      ],
    );
  });

  it('ends with an error event on a mid-stream error', () => {
    assert.deepEqual(
      run([
        { type: 'start', id: 'up', model: 'up', usage: { input: 1 } },
        { type: 'block_start', index: 0, block: { type: 'text' } },
        { type: 'text_delta', index: 0, text: 'par' },
        { type: 'error', error: { status: 529, kind: 'overloaded', message: 'Overloaded', retryable: true } },
        { type: 'text_delta', index: 0, text: 'ignored' },
      ]),
      [
        start({ input_tokens: 1, output_tokens: 0 }),
        blockStart(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'par' }),
        ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
      ],
    );
  });

  it('still ends well-formed when the upstream said nothing', () => {
    assert.deepEqual(run([]), [
      start({ input_tokens: 0, output_tokens: 0 }),
      ev('message_delta', {
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { input_tokens: 0, output_tokens: 0 },
      }),
      messageStop,
    ]);
  });
});

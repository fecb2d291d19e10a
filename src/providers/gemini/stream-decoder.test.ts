import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamEvent } from '../../ir/types.ts';
import { fixtureLines } from '../shared/fixtures.ts';
import { newGeminiStreamDecoder } from './stream-decoder.ts';

function ids() {
  let n = 0;
  return () => `call_test${++n}`;
}

function replay(name: string, model = 'gemini-x'): StreamEvent[] {
  const decoder = newGeminiStreamDecoder(model, ids());
  const out: StreamEvent[] = [];
  for (const line of fixtureLines('gemini', name)) out.push(...decoder.push({ data: line }));
  out.push(...decoder.end());
  return out;
}

describe('Gemini stream decoder', () => {
  it('replays a text stream with thoughts', () => {
    assert.deepEqual(replay('text.chunks.txt'), [
      { type: 'start', id: 'r-1', model: 'gemini-2.5-flash' },
      { type: 'block_start', index: 0, block: { type: 'thinking' } },
      { type: 'thinking_delta', index: 0, text: 'Thinking about it' },
      { type: 'usage', usage: { input: 7, output: 0 } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'text' } },
      { type: 'text_delta', index: 1, text: 'Hel' },
      { type: 'text_delta', index: 1, text: 'lo there' },
      { type: 'text_delta', index: 1, text: '!' },
      { type: 'usage', usage: { input: 7, output: 14 } },
      { type: 'block_stop', index: 1 },
      { type: 'stop', stopReason: 'end_turn', rawStopReason: 'STOP', stopSequence: null },
    ]);
  });

  it('replays whole function calls as one args delta each, with signature and tool_use stop', () => {
    assert.deepEqual(replay('tools.chunks.txt'), [
      { type: 'start', id: 'r-2', model: 'gemini-2.5-pro' },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'Checking' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'thinking' } },
      { type: 'signature_delta', index: 1, signature: 'c2ln' },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'tool_use', id: 'call_test1', name: 'get_weather' } },
      { type: 'tool_args_delta', index: 2, partialJson: '{"city":"Paris"}' },
      { type: 'block_stop', index: 2 },
      { type: 'block_start', index: 3, block: { type: 'tool_use', id: 'fc-7', name: 'get_time' } },
      { type: 'tool_args_delta', index: 3, partialJson: '{}' },
      { type: 'block_stop', index: 3 },
      { type: 'usage', usage: { input: 20, output: 9 } },
      { type: 'stop', stopReason: 'tool_use', rawStopReason: 'STOP', stopSequence: null },
    ]);
  });

  it('turns an in-stream error object into an error event and no stop', () => {
    const events = replay('midstream-error.chunks.txt');
    assert.deepEqual(events.slice(0, 3), [
      { type: 'start', id: 'r-3', model: 'gemini-2.5-flash' },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'Partial' },
    ]);
    assert.equal(events.length, 4);
    const last = events[3];
    assert.equal(last.type, 'error');
    if (last.type === 'error') {
      assert.equal(last.error.status, 503);
      assert.equal(last.error.kind, 'overloaded');
      assert.equal(last.error.retryable, true);
      assert.equal(last.error.message, 'The model is overloaded. Please try again later.');
    }
  });

  it('reports a blocked prompt as content_filter', () => {
    assert.deepEqual(replay('blocked.chunks.txt'), [
      { type: 'start', id: 'r-4', model: 'gemini-2.5-flash' },
      { type: 'usage', usage: { input: 4, output: 0 } },
      { type: 'stop', stopReason: 'content_filter', rawStopReason: 'PROHIBITED_CONTENT', stopSequence: null },
    ]);
  });

  it('closes a truncated stream with a synthesized stop', () => {
    assert.deepEqual(replay('truncated.chunks.txt'), [
      { type: 'start', id: 'r-5', model: 'gemini-2.5-flash' },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'Cut' },
      { type: 'block_stop', index: 0 },
      { type: 'stop', stopReason: 'end_turn', stopSequence: null },
    ]);
  });

  it('emits start and stop for an empty stream', () => {
    const events = newGeminiStreamDecoder('gemini-x').end();
    assert.deepEqual(
      events.map((e) => e.type),
      ['start', 'stop'],
    );
  });
});

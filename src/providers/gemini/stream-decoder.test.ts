import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertErrorEnd, stopEvent, textBlockEvents, thinkingBlockEvents, toolBlockEvents } from '../../ir/test-kit.ts';
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
      // the last chunk's usage comes before the block closes
      ...textBlockEvents(1, 'Hel', 'lo there', '!').slice(0, -1),
      { type: 'usage', usage: { input: 7, output: 14 } },
      { type: 'block_stop', index: 1 },
      stopEvent('end_turn', 'STOP'),
    ]);
  });

  it('replays whole function calls as one args delta each, with signature and tool_use stop', () => {
    assert.deepEqual(replay('tools.chunks.txt'), [
      { type: 'start', id: 'r-2', model: 'gemini-2.5-pro' },
      ...textBlockEvents(0, 'Checking'),
      ...thinkingBlockEvents(1, [], 'c2ln'),
      ...toolBlockEvents(2, 'call_test1', 'get_weather', '{"city":"Paris"}'),
      ...toolBlockEvents(3, 'fc-7', 'get_time', '{}'),
      { type: 'usage', usage: { input: 20, output: 9 } },
      stopEvent('tool_use', 'STOP'),
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
    assertErrorEnd(events, {
      status: 503,
      kind: 'overloaded',
      retryable: true,
      message: 'The model is overloaded. Please try again later.',
    });
  });

  it('reports a blocked prompt as content_filter', () => {
    assert.deepEqual(replay('blocked.chunks.txt'), [
      { type: 'start', id: 'r-4', model: 'gemini-2.5-flash' },
      { type: 'usage', usage: { input: 4, output: 0 } },
      stopEvent('content_filter', 'PROHIBITED_CONTENT'),
    ]);
  });

  it('closes a truncated stream with a synthesized stop', () => {
    assert.deepEqual(replay('truncated.chunks.txt'), [
      { type: 'start', id: 'r-5', model: 'gemini-2.5-flash' },
      ...textBlockEvents(0, 'Cut'),
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

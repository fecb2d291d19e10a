import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { textBlockEvents, thinkingBlockEvents, toolBlockEvents } from '../../../ir/test-kit.ts';
import type { StreamEvent } from '../../../ir/types.ts';
import { betaStreamEnd, betaStreamStep, newBetaStreamEncoder, newBetaStreamState } from './stream-encoder.ts';

function run(events: StreamEvent[]): string[] {
  const enc = newBetaStreamEncoder({ id: 'msg_9', model: 'gw' });
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
/** `message_delta` with the stop reason and final usage, then `message_stop`. */
const messageEnd = (stopReason: string, usage: object, stopSequence: string | null = null) => [
  ev('message_delta', { delta: { stop_reason: stopReason, stop_sequence: stopSequence }, usage }),
  messageStop,
];

describe('beta stream encoder', () => {
  it('encodes a text stream', () => {
    assert.deepEqual(
      run([
        { type: 'start', id: 'up', model: 'up', usage: { input: 5 } },
        ...textBlockEvents(0, 'Hi', '!'),
        { type: 'stop', stopReason: 'end_turn' },
        { type: 'usage', usage: { output: 2 } },
      ]),
      [
        start({ input_tokens: 5, output_tokens: 0 }),
        blockStart(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'Hi' }),
        delta(0, { type: 'text_delta', text: '!' }),
        stop(0),
        ...messageEnd('end_turn', { input_tokens: 5, output_tokens: 2 }),
      ],
    );
  });

  it('encodes thinking then text with contiguous indexes, skipping an empty text block', () => {
    assert.deepEqual(
      run([
        { type: 'start', id: 'up', model: 'up', usage: { input: 5, cacheRead: 3 } },
        { type: 'block_start', index: 0, block: { type: 'text' } },
        { type: 'block_stop', index: 0 },
        ...thinkingBlockEvents(1, ['plan'], 'sig'),
        ...textBlockEvents(2, 'Done'),
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
        ...messageEnd('stop_sequence', { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 3 }, 'END'),
      ],
    );
  });

  it('encodes parallel tool calls as tool_use blocks with input_json_delta', () => {
    assert.deepEqual(
      run([
        { type: 'start', id: 'up', model: 'up' },
        ...toolBlockEvents(0, 'call_a', 'weather', '', '{"city":', '"Paris"}'),
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
        ...messageEnd('tool_use', { input_tokens: 30, output_tokens: 12 }),
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

/** The event names and payloads of SSE records, for assertions on a few fields. */
function parsed(records: string[]): { event: string; data: Record<string, unknown> }[] {
  return records.map((r) => {
    const [eventLine, dataLine] = r.trimEnd().split('\n');
    return { event: eventLine.slice('event: '.length), data: JSON.parse(dataLine.slice('data: '.length)) };
  });
}

describe('betaStreamStep / betaStreamEnd', () => {
  const opts = { id: 'msg_1', model: 'gw' };

  it('holds an empty text block unannounced, so the next block takes output index 0', () => {
    const s = newBetaStreamState(opts);
    assert.deepEqual(
      parsed(betaStreamStep(s, { type: 'block_start', index: 0, block: { type: 'text' } })).map((r) => r.event),
      ['message_start'],
    );
    assert.deepEqual(s.open, { irIndex: 0, kind: 'text', index: null });
    assert.deepEqual(betaStreamStep(s, { type: 'text_delta', index: 0, text: '' }), []);
    assert.deepEqual(betaStreamStep(s, { type: 'block_stop', index: 0 }), []);
    assert.equal(s.open, null);
    assert.equal(s.nextIndex, 0);

    const tool = parsed(
      betaStreamStep(s, { type: 'block_start', index: 1, block: { type: 'tool_use', id: 'call_a', name: 'f' } }),
    );
    assert.deepEqual(
      tool.map((r) => [r.event, r.data.index]),
      [['content_block_start', 0]],
    );
    assert.deepEqual(s.open, { irIndex: 1, kind: 'tool_use', index: 0 });
    assert.equal(s.nextIndex, 1);
  });

  it('a delta for a block never started opens one, closing the open block first', () => {
    const s = newBetaStreamState(opts);
    betaStreamStep(s, { type: 'text_delta', index: 0, text: 'hi' });
    assert.deepEqual(s.open, { irIndex: 0, kind: 'text', index: 0 });
    const out = parsed(betaStreamStep(s, { type: 'tool_args_delta', index: 3, partialJson: '{}' }));
    assert.deepEqual(
      out.map((r) => [r.event, r.data.index]),
      [
        ['content_block_stop', 0],
        ['content_block_start', 1],
        ['content_block_delta', 1],
      ],
    );
    assert.deepEqual(out[1].data.content_block, { type: 'tool_use', id: 'toolu_unknown', name: 'unknown', input: {} });
    assert.deepEqual(s.open, { irIndex: 3, kind: 'tool_use', index: 1 });
  });

  it('holds the stop until the end, so usage that follows it is counted', () => {
    const s = newBetaStreamState(opts);
    betaStreamStep(s, { type: 'start', id: 'u', model: 'u', usage: { input: 4 } });
    betaStreamStep(s, { type: 'text_delta', index: 0, text: 'x' });
    const atStop = parsed(betaStreamStep(s, { type: 'stop', stopReason: 'max_tokens', rawStopReason: 'length' }));
    assert.deepEqual(
      atStop.map((r) => r.event),
      ['content_block_stop'],
    );
    assert.deepEqual(s.stop, { reason: 'max_tokens', raw: 'length', sequence: null });
    betaStreamStep(s, { type: 'usage', usage: { output: 6 } });
    assert.deepEqual(s.usage, { input: 4, output: 6 });
    const end = parsed(betaStreamEnd(s));
    assert.deepEqual(
      end.map((r) => r.event),
      ['message_delta', 'message_stop'],
    );
    assert.deepEqual(end[0].data.usage, { input_tokens: 4, output_tokens: 6 });
    assert.deepEqual(end[0].data.delta, { stop_reason: 'max_tokens', stop_sequence: null });
  });

  it('is closed after an error or the end: nothing more is written', () => {
    const failed = newBetaStreamState(opts);
    const out = parsed(
      betaStreamStep(failed, {
        type: 'error',
        error: { status: 500, kind: 'server', message: 'boom', retryable: true },
      }),
    );
    assert.deepEqual(
      out.map((r) => r.event),
      ['error'],
    );
    assert.equal(failed.started, false, 'no message_start before an error that came first');
    assert.equal(failed.closed, true);
    assert.deepEqual(betaStreamStep(failed, { type: 'text_delta', index: 0, text: 'late' }), []);
    assert.deepEqual(betaStreamEnd(failed), []);

    const ended = newBetaStreamState(opts);
    assert.deepEqual(
      parsed(betaStreamEnd(ended)).map((r) => r.event),
      ['message_start', 'message_delta', 'message_stop'],
    );
    assert.deepEqual(betaStreamEnd(ended), []);
    assert.deepEqual(betaStreamStep(ended, { type: 'stop', stopReason: 'end_turn' }), []);
  });
});

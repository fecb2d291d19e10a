// The assembler decides what a cache may store: it must rebuild the answer from streams shaped the way
// real decoders shape them, and refuse anything incomplete, failed or unparseable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseAssembler } from './stream-assembler.ts';
import { stopEvent, textBlockEvents, toolBlockEvents } from './test-kit.ts';
import type { StreamEvent } from './types.ts';

function assemble(events: StreamEvent[]): ReturnType<ResponseAssembler['result']> {
  const asm = new ResponseAssembler();
  for (const ev of events) asm.push(ev);
  return asm.result();
}

const start: StreamEvent = { type: 'start', id: 'msg_1', model: 'up', usage: { input: 10 } };
const stop: StreamEvent = { type: 'stop', stopReason: 'end_turn' };

const toolStream: StreamEvent[] = [
  start,
  ...toolBlockEvents(0, 'toolu_a', 'weather', '{"city":"Pa', 'ris","days":[1,', '2]}'),
  { type: 'block_start', index: 1, block: { type: 'tool_use', id: 'toolu_b', name: 'time' } },
  { type: 'block_stop', index: 1 },
  { type: 'usage', usage: { output: 4 } },
  { type: 'stop', stopReason: 'tool_use', rawStopReason: 'tool_calls' },
];

test('folds fragmented deltas into whole blocks', () => {
  assert.deepEqual(
    assemble([
      start,
      { type: 'block_start', index: 0, block: { type: 'thinking' } },
      { type: 'thinking_delta', index: 0, text: 'Need ' },
      { type: 'thinking_delta', index: 0, text: 'facts.' },
      { type: 'signature_delta', index: 0, signature: 'sig-' },
      { type: 'signature_delta', index: 0, signature: '1' },
      { type: 'block_stop', index: 0 },
      ...textBlockEvents(1, 'Hello, ', 'world.'),
      { type: 'usage', usage: { output: 5 } },
      stop,
    ]),
    {
      id: 'msg_1',
      model: 'up',
      content: [
        { type: 'thinking', thinking: 'Need facts.', signature: 'sig-1' },
        { type: 'text', text: 'Hello, world.' },
      ],
      stopReason: 'end_turn',
      usage: { input: 10, output: 5 },
    },
  );
});

test('tool input is parsed from the joined fragments; no fragments means {}', () => {
  const res = assemble(toolStream);
  assert.deepEqual(res?.content, [
    { type: 'tool_use', id: 'toolu_a', name: 'weather', input: { city: 'Paris', days: [1, 2] } },
    { type: 'tool_use', id: 'toolu_b', name: 'time', input: {} },
  ]);
  assert.equal(res?.stopReason, 'tool_use');
  assert.equal(res?.rawStopReason, 'tool_calls');
});

test('no stop event: undefined', () => {
  assert.equal(assemble(toolStream.slice(0, -1)), undefined);
  assert.equal(new ResponseAssembler().result(), undefined);
});

test('an error event: undefined, even when a stop follows or preceded it', () => {
  const error: StreamEvent = {
    type: 'error',
    error: { status: 529, kind: 'overloaded', message: 'Overloaded', retryable: true },
  };
  const text: StreamEvent[] = [
    start,
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'partial' },
  ];
  assert.equal(assemble([...text, error]), undefined);
  assert.equal(assemble([...text, error, stop]), undefined);
  assert.equal(assemble([...text, stop, error]), undefined);
});

test('broken tool JSON: undefined', () => {
  const broken = toolStream.map((ev) =>
    ev.type === 'tool_args_delta' && ev.partialJson === '2]}' ? { ...ev, partialJson: '2' } : ev,
  );
  assert.equal(assemble(broken), undefined);
});

test('usage merges field by field; a later partial report keeps earlier counts', () => {
  const res = assemble([
    { type: 'start', id: 'x', model: 'm', usage: { input: 7, cacheRead: 100 } },
    { type: 'usage', usage: { output: 1 } },
    { type: 'usage', usage: { output: 9, cacheWrite: 3 } },
    { type: 'usage', usage: { input: undefined, output: 12 } },
    stop,
  ]);
  assert.deepEqual(res?.usage, { input: 7, output: 12, cacheRead: 100, cacheWrite: 3 });
});

test('usage reported after the stop still counts (chat-completions upstreams send it last)', () => {
  const res = assemble([start, stop, { type: 'usage', usage: { output: 20 } }]);
  assert.deepEqual(res?.usage, { input: 10, output: 20 });
});

test('missing usage reads as zero; stopSequence null is kept', () => {
  const res = assemble([{ type: 'start', id: 'x', model: 'm' }, stopEvent('stop_sequence')]);
  assert.deepEqual(res, {
    id: 'x',
    model: 'm',
    content: [],
    stopReason: 'stop_sequence',
    rawStopReason: 'stop_sequence',
    stopSequence: null,
    usage: { input: 0, output: 0 },
  });
});

test('text and thinking deltas without a block_start open their block, like the encoders allow', () => {
  const res = assemble([
    start,
    { type: 'thinking_delta', index: 0, text: 'hmm' },
    { type: 'text_delta', index: 1, text: 'hi' },
    stop,
  ]);
  assert.deepEqual(res?.content, [
    { type: 'thinking', thinking: 'hmm' },
    { type: 'text', text: 'hi' },
  ]);
});

test('streams that cannot be rebuilt faithfully: undefined', () => {
  const headerless: StreamEvent[] = [start, { type: 'tool_args_delta', index: 0, partialJson: '{}' }, stop];
  assert.equal(assemble(headerless), undefined, 'a tool call without id and name');
  const wrongKind: StreamEvent[] = [
    start,
    { type: 'block_start', index: 0, block: { type: 'tool_use', id: 't', name: 'n' } },
    { type: 'text_delta', index: 0, text: 'x' },
    stop,
  ];
  assert.equal(assemble(wrongKind), undefined, 'a text delta inside a tool call');
  const twice: StreamEvent[] = [
    start,
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    stop,
  ];
  assert.equal(assemble(twice), undefined, 'the same index started twice');
});

test('result() can be called repeatedly and returns independent copies', () => {
  const asm = new ResponseAssembler();
  for (const ev of toolStream) asm.push(ev);
  const first = asm.result();
  const second = asm.result();
  assert.deepEqual(first, second);
  assert.notEqual(first, second);
  if (first?.content[0].type === 'tool_use') first.content[0].name = 'changed';
  assert.equal(second?.content[0].type === 'tool_use' && second.content[0].name, 'weather');
  assert.deepEqual(asm.result(), second);
});

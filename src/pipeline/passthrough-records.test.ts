import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PassthroughToolAccumulator } from '../families/alpha/codec/stream-encoder.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import { type PassthroughState, passthroughAlphaRecord, withoutNullUsage } from './passthrough-records.ts';

function state(callerWantsUsage: boolean): PassthroughState {
  return {
    summary: { usage: { input: 0, output: 0 }, text: '', aborted: false },
    callerWantsUsage,
    tools: new PassthroughToolAccumulator(),
    sawTerminal: false,
    codec: alphaCodec,
  };
}

function parsed(records: string[]): unknown[] {
  return records.map((r) => JSON.parse(r.replace(/^data: /, '')));
}

test('withoutNullUsage cuts the key wherever it stands and keeps the JSON valid', () => {
  const cases: Array<[string, unknown]> = [
    ['{"id":"a","choices":[],"usage":null}', { id: 'a', choices: [] }],
    ['{"usage":null,"id":"a"}', { id: 'a' }],
    ['{"id":"a", "usage" : null , "x":1}', { id: 'a', x: 1 }],
    ['{"usage":null}', {}],
    [
      '{"id":"a","choices":[{"delta":{"content":"\\"usage\\":null"}}],"usage":null}',
      { id: 'a', choices: [{ delta: { content: '"usage":null' } }] },
    ],
  ];
  for (const [input, expected] of cases) {
    const out = withoutNullUsage(input);
    assert.ok(out !== undefined, input);
    assert.deepEqual(JSON.parse(out), expected, input);
  }
});

test('withoutNullUsage gives up when the key is absent or appears more than once', () => {
  assert.equal(withoutNullUsage('{"id":"a"}'), undefined);
  assert.equal(withoutNullUsage('{"x":{"usage":null},"usage":null}'), undefined);
});

test('pass-through chunks keep their bytes, minus the forced usage:null for callers who did not ask', () => {
  const chunk =
    '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"usage":null}';
  assert.deepEqual(passthroughAlphaRecord(state(true), { data: chunk }), [`data: ${chunk}\n\n`]);
  const hidden = passthroughAlphaRecord(state(false), { data: chunk });
  assert.equal(hidden.length, 1);
  assert.equal(hidden[0], `data: ${chunk.replace(',"usage":null', '')}\n\n`);
  const plain = '{"id":"c1","choices":[{"index":0,"delta":{"content":"x"}}]}';
  assert.deepEqual(passthroughAlphaRecord(state(false), { data: plain }), [`data: ${plain}\n\n`]);
});

test('the usage chunk itself is hidden from callers who did not ask and counted either way', () => {
  const usage =
    '{"id":"c1","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":2}}}';
  const s = state(false);
  assert.deepEqual(passthroughAlphaRecord(s, { data: usage }), []);
  assert.deepEqual(s.summary.usage, { input: 5, output: 3, cacheRead: 2 });
  const shown = state(true);
  assert.deepEqual(parsed(passthroughAlphaRecord(shown, { data: usage })), [JSON.parse(usage)]);
});

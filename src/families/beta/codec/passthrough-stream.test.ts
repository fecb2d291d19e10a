import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StreamSummary } from '../../../ir/outcome.ts';
import { BetaPassthroughStream } from './passthrough-stream.ts';

function summary(): StreamSummary {
  return { usage: { input: 0, output: 0 }, text: '', aborted: false };
}

const EVENTS: Array<[string, string]> = [
  [
    'message_start',
    '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1,"cache_read_input_tokens":4,"cache_creation_input_tokens":2}}}',
  ],
  ['content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'],
  ['ping', '{"type": "ping"}'],
  [
    'content_block_delta',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hej \\"d\\u00e5\\""}}',
  ],
  ['content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}'],
  ['content_block_stop', '{"type":"content_block_stop","index":0}'],
  [
    'content_block_start',
    '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}',
  ],
  [
    'content_block_delta',
    '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"text\\": 1}"}}',
  ],
  ['content_block_stop', '{"type":"content_block_stop","index":1}'],
  [
    'message_delta',
    '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}',
  ],
  ['message_stop', '{"type":"message_stop"}'],
];

test('every event goes out as sent, and usage, text and stop reason are recorded', () => {
  const s = summary();
  const relay = new BetaPassthroughStream(s);
  const out = EVENTS.map(([name, data]) => relay.push(name, data)).join('') + relay.end();
  assert.equal(out, EVENTS.map(([name, data]) => `event: ${name}\ndata: ${data}\n\n`).join(''));
  assert.equal(s.text, 'Hej "då"!');
  assert.deepEqual(s.usage, { input: 12, output: 9, cacheRead: 4, cacheWrite: 2 });
  assert.equal(s.stopReason, 'tool_use');
});

test('the stop reason reads as the adapter reads a whole answer: refusal, context window, pause', () => {
  const cases: Array<[string, string]> = [
    ['refusal', 'content_filter'],
    ['model_context_window_exceeded', 'max_tokens'],
    ['stop_sequence', 'stop_sequence'],
    ['pause_turn', 'end_turn'],
  ];
  for (const [raw, ir] of cases) {
    const s = summary();
    new BetaPassthroughStream(s).push(
      'message_delta',
      `{"type":"message_delta","delta":{"stop_reason":"${raw}"},"usage":{"output_tokens":3}}`,
    );
    assert.equal(s.stopReason, ir, raw);
  }
});

test('records without an event name (Bedrock frames) are named after their type', () => {
  const s = summary();
  const relay = new BetaPassthroughStream(s);
  const out = EVENTS.map(([, data]) => relay.push(undefined, data)).join('');
  assert.equal(out, EVENTS.map(([name, data]) => `event: ${name}\ndata: ${data}\n\n`).join(''));
  assert.equal(s.text, 'Hej "då"!');
  assert.equal(s.usage.output, 9);
});

test('an error event is recorded and relayed; unreadable records are dropped', () => {
  const s = summary();
  const relay = new BetaPassthroughStream(s);
  const data = '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}';
  assert.equal(relay.push('error', data), `event: error\ndata: ${data}\n\n`);
  assert.equal(s.error?.kind, 'rate_limit');
  assert.equal(relay.push('message_delta', 'not json'), '');
});

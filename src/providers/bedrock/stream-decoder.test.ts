import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { assertErrorEnd, stopEvent, textBlockEvents, thinkingBlockEvents, toolBlockEvents } from '../../ir/test-kit.ts';
import type { StreamEvent } from '../../ir/types.ts';
import { newAnthropicStreamDecoder } from '../anthropic/stream-decoder.ts';
import {
  anthropicSseFixture,
  assertStreamInvariants,
  fixtureLines,
  replay as replayRecords,
} from '../shared/fixtures.ts';
import type { UpstreamEvent } from '../types.ts';
import { EventStreamDecoder } from './eventstream.ts';
import { newConverseStreamDecoder, newInvokeAnthropicStreamDecoder } from './stream-decoder.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** Encodes a `.chunks.txt` fixture (`eventType json`, `!exceptionType json`) as real eventstream bytes. */
function framesOf(name: string): Uint8Array {
  const parts: number[] = [];
  for (const line of fixtureLines('bedrock', name)) {
    const space = line.indexOf(' ');
    const type = line.slice(0, space);
    const exception = type.startsWith('!');
    const headers = {
      [exception ? ':exception-type' : ':event-type']: { type: 'string' as const, value: type.replace('!', '') },
      ':content-type': { type: 'string' as const, value: 'application/json' },
      ':message-type': { type: 'string' as const, value: exception ? 'exception' : 'event' },
    };
    parts.push(...codec.encode({ headers, body: fromUtf8(line.slice(space + 1)) }));
  }
  return Uint8Array.from(parts);
}

/** Frames -> EventStreamDecoder (in 7-byte chunks) -> Converse stream decoder, start id normalized. */
function replay(name: string): StreamEvent[] {
  const bytes = framesOf(name);
  const frames = new EventStreamDecoder();
  const decoder = newConverseStreamDecoder('amazon.nova-pro-v1:0');
  const out: StreamEvent[] = [];
  for (let i = 0; i < bytes.length; i += 7) {
    for (const record of frames.push(bytes.subarray(i, i + 7))) out.push(...decoder.push(record));
  }
  out.push(...decoder.end());
  const start = out[0];
  assert.equal(start.type, 'start');
  if (start.type === 'start') {
    assert.match(start.id, /^msg_bdrk_[A-Za-z0-9]{24}$/);
    start.id = 'ID';
  }
  return out;
}

describe('ConverseStream decoder', () => {
  it('replays reasoning + text, holding the stop until usage arrives', () => {
    assert.deepEqual(replay('text.chunks.txt'), [
      { type: 'start', id: 'ID', model: 'amazon.nova-pro-v1:0' },
      ...thinkingBlockEvents(0, ['Hmm, ', 'a greeting.'], 'sig-1'),
      ...textBlockEvents(1, 'Hel', 'lo!'),
      { type: 'usage', usage: { input: 12, output: 6, cacheRead: 4 } },
      stopEvent('end_turn'),
    ]);
  });

  it('replays tool calls with argument fragments and {} for a call without input', () => {
    assert.deepEqual(replay('tools.chunks.txt'), [
      { type: 'start', id: 'ID', model: 'amazon.nova-pro-v1:0' },
      ...textBlockEvents(0, 'Let me check.'),
      ...toolBlockEvents(1, 'tooluse_1', 'get_weather', '{"city":', '"Paris"}'),
      ...toolBlockEvents(2, 'tooluse_2', 'get_time', '{}'),
      { type: 'usage', usage: { input: 30, output: 15 } },
      stopEvent('tool_use'),
    ]);
  });

  it('turns an exception frame into an error event and no stop', () => {
    const events = replay('midstream-error.chunks.txt');
    assert.equal(events.length, 4);
    assert.deepEqual(events[2], { type: 'text_delta', index: 0, text: 'Partial' });
    assertErrorEnd(events, {
      status: 429,
      kind: 'rate_limit',
      retryable: true,
      message: 'Too many tokens, please wait before trying again.',
      code: 'throttlingException',
    });
  });

  it('emits the held stop at stream end when metadata never came', () => {
    assert.deepEqual(replay('no-metadata.chunks.txt').slice(-2), [
      { type: 'block_stop', index: 0 },
      stopEvent('max_tokens'),
    ]);
  });

  it('closes an open block and stops a stream cut mid-block', () => {
    const decoder = newConverseStreamDecoder('m');
    const events = [
      ...decoder.push({ event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"x"}}' }),
      ...decoder.end(),
    ];
    assert.deepEqual(
      events.map((e) => e.type),
      ['start', 'block_start', 'text_delta', 'block_stop', 'stop'],
    );
    assert.deepEqual(decoder.end(), []);
  });
});

/** Anthropic's recorded SSE events as InvokeModel streams them: `chunk` frames with the event JSON base64-encoded. */
function invokeFrames(events: UpstreamEvent[]): UpstreamEvent[] {
  return events.map((e) => ({
    event: 'chunk',
    messageType: 'event',
    data: JSON.stringify({ bytes: Buffer.from(e.data).toString('base64') }),
  }));
}

describe('InvokeModel stream of Claude', () => {
  it('decodes its frames to the events the Anthropic decoder makes of the same stream', () => {
    const events = anthropicSseFixture('stream-thinking-tools.chunks.txt');
    const viaBedrock = replayRecords(newInvokeAnthropicStreamDecoder(), invokeFrames(events));
    assert.ok(viaBedrock.some((e) => e.type === 'tool_args_delta'));
    assert.deepEqual(viaBedrock, replayRecords(newAnthropicStreamDecoder(), events));
  });

  it('turns an exception frame into an error event', () => {
    const frames = invokeFrames(anthropicSseFixture('stream-overloaded.chunks.txt').slice(0, 2));
    frames.push({ event: 'throttlingException', messageType: 'exception', data: '{"message":"Too many requests"}' });
    const events = replayRecords(newInvokeAnthropicStreamDecoder(), frames);
    assertStreamInvariants(events);
    assertErrorEnd(events, { status: 429, kind: 'rate_limit', message: 'Too many requests' });
  });
});

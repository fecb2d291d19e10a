import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { EventStreamDecoder } from './eventstream.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function frame(headers: Record<string, string>, body: string): Uint8Array {
  const h: Record<string, { type: 'string'; value: string }> = {};
  for (const [k, v] of Object.entries(headers)) h[k] = { type: 'string', value: v };
  return codec.encode({ headers: h, body: fromUtf8(body) });
}

const hex = (s: string) => Uint8Array.from(s.split(' ').map((b) => Number.parseInt(b, 16)));

describe('EventStreamDecoder', () => {
  it('decodes the published no-header vector', () => {
    const bytes = hex('00 00 00 1e 00 00 00 00 ba f2 f6 8a 7b 22 66 6f 6f 22 3a 20 22 62 61 72 22 7d ae 72 58 e4');
    assert.deepEqual(new EventStreamDecoder().push(bytes), [{ data: '{"foo": "bar"}' }]);
  });

  it('matches the 148-byte contentBlockDelta vector prelude and CRC', () => {
    const bytes = frame(
      { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' },
      '{"contentBlockIndex":0,"delta":{"text":"Hi"}}',
    );
    assert.equal(bytes.length, 148);
    assert.deepEqual([...bytes.subarray(0, 12)], [...hex('00 00 00 94 00 00 00 57 b4 ab 9a ee')]);
    assert.deepEqual([...bytes.subarray(144)], [...hex('1f 94 46 57')]);
  });

  it('reassembles frames split at every awkward boundary', () => {
    const stream = new Uint8Array([
      ...frame({ ':event-type': 'messageStart', ':message-type': 'event' }, '{"role":"assistant"}'),
      ...frame({ ':event-type': 'contentBlockDelta', ':message-type': 'event' }, '{"delta":{"text":"héllo ✓"}}'),
      ...frame({ ':exception-type': 'throttlingException', ':message-type': 'exception' }, '{"message":"slow down"}'),
    ]);
    const expected = [
      { event: 'messageStart', messageType: 'event', data: '{"role":"assistant"}' },
      { event: 'contentBlockDelta', messageType: 'event', data: '{"delta":{"text":"héllo ✓"}}' },
      { event: 'throttlingException', messageType: 'exception', data: '{"message":"slow down"}' },
    ];
    for (const size of [1, 2, 3, 5, 7, 13, 64, stream.length]) {
      const decoder = new EventStreamDecoder();
      const got = [];
      for (let i = 0; i < stream.length; i += size) got.push(...decoder.push(stream.subarray(i, i + size)));
      assert.deepEqual(got, expected, `chunk size ${size}`);
      assert.equal(decoder.pendingBytes, 0);
    }
  });

  it('keeps a truncated frame pending', () => {
    const bytes = frame({ ':event-type': 'messageStop' }, '{"stopReason":"end_turn"}');
    const decoder = new EventStreamDecoder();
    assert.deepEqual(decoder.push(bytes.subarray(0, bytes.length - 1)), []);
    assert.equal(decoder.pendingBytes, bytes.length - 1);
  });

  it('throws on a corrupted frame', () => {
    const bytes = frame({ ':event-type': 'messageStop' }, '{"stopReason":"end_turn"}');
    bytes[bytes.length - 6] ^= 0xff;
    assert.throws(() => new EventStreamDecoder().push(bytes));
  });
});

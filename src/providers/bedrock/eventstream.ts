// Incremental framing for `application/vnd.amazon.eventstream`: HTTP chunks do not align with
// frames, so bytes are buffered until a whole frame (announced by its 4-byte length prelude) is in.
import { createRequire } from 'node:module';
import type * as Codec from '@smithy/eventstream-codec';
import type * as Utf8 from '@smithy/util-utf8';
import type { UpstreamEvent } from '../types.ts';

// The codec (~8 MB resident loaded alone) loads with the first Bedrock stream, not at start.
// The CommonJS builds are required synchronously so that push() stays synchronous.
interface Loaded {
  codec: Codec.EventStreamCodec;
  toUtf8: typeof Utf8.toUtf8;
}
let loaded: Loaded | undefined;

function load(): Loaded {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const { EventStreamCodec } = require('@smithy/eventstream-codec') as typeof Codec;
    const { fromUtf8, toUtf8 } = require('@smithy/util-utf8') as typeof Utf8;
    loaded = { codec: new EventStreamCodec(toUtf8, fromUtf8), toUtf8 };
  }
  return loaded;
}

const PRELUDE_BYTES = 4;
/** Prelude (12) + message CRC (4): the smallest valid frame. */
const MIN_FRAME_BYTES = 16;

function headerString(value: { type: string; value: unknown } | undefined): string | undefined {
  if (!value) return undefined;
  return typeof value.value === 'string' ? value.value : String(value.value);
}

export class EventStreamDecoder {
  private buffer: Uint8Array = new Uint8Array(0);

  /** Feeds raw bytes; returns every frame completed by them. Throws on a corrupt frame (bad CRC). */
  push(bytes: Uint8Array): UpstreamEvent[] {
    this.buffer = this.buffer.length === 0 ? bytes : concat(this.buffer, bytes);
    const events: UpstreamEvent[] = [];
    while (this.buffer.length >= PRELUDE_BYTES) {
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
      const total = view.getUint32(0, false);
      if (total < MIN_FRAME_BYTES) throw new Error(`eventstream: invalid frame length ${total}`);
      if (this.buffer.length < total) break;
      const frame = this.buffer.subarray(0, total);
      this.buffer = this.buffer.subarray(total);
      const { codec, toUtf8 } = load();
      const message = codec.decode(frame);
      const event: UpstreamEvent = { data: toUtf8(message.body) };
      const name = headerString(message.headers[':event-type']) ?? headerString(message.headers[':exception-type']);
      if (name !== undefined) event.event = name;
      const messageType = headerString(message.headers[':message-type']);
      if (messageType !== undefined) event.messageType = messageType;
      events.push(event);
    }
    // Do not keep a view into the caller's chunk: its memory may be reused after we return.
    if (this.buffer.length > 0 && this.buffer.buffer === bytes.buffer) this.buffer = this.buffer.slice();
    return events;
  }

  /** Bytes of an unfinished frame; non-zero at stream end means the upstream truncated it. */
  get pendingBytes(): number {
    return this.buffer.length;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

// A protobuf writer for the few OTLP messages the gateway sends: spans written field by field from
// the call record as the call ends, without span objects or an attribute map in between (that path
// cost about 35 us per call, more than twice the budget; see bench/tracing-cost.ts). Field numbers
// are those of opentelemetry-proto (trace.proto, common.proto); test/telemetry decodes what this
// writes with the official definitions.

/** What an attribute may hold, as the conventions use them: scalars and arrays of strings. */
export type AttrValue = string | number | boolean | readonly string[];

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

/** Attribute keys come from a small set; each one's encoded bytes (field tag, length, UTF-8) are kept. */
const KEYS = new Map<string, Buffer>();
const MAX_KEYS = 4096;

/** Bytes a varint of `v` takes. */
export function varintSize(v: number): number {
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

export class ProtoWriter {
  buf: Buffer;
  pos = 0;

  constructor(size = 16 * 1024) {
    this.buf = Buffer.allocUnsafe(size);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  varint(v: number): void {
    this.ensure(10);
    const b = this.buf;
    if (v < 128) {
      b[this.pos++] = v;
      return;
    }
    while (v >= 128) {
      b[this.pos++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    b[this.pos++] = v;
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Bytes given as lowercase hex (span and trace ids, which the gateway keeps in their header form). */
  hexField(field: number, hex: string): void {
    this.tag(field, WIRE_LEN);
    const n = hex.length >>> 1;
    this.ensure(n + 1);
    const b = this.buf;
    let p = this.pos;
    b[p++] = n;
    for (let i = 0; i < hex.length; i += 2) b[p++] = (nibble(hex.charCodeAt(i)) << 4) | nibble(hex.charCodeAt(i + 1));
    this.pos = p;
  }

  stringField(field: number, s: string): void {
    this.tag(field, WIRE_LEN);
    // Short strings, nearly always ASCII: one length byte and the chars copied as they are.
    if (s.length < 128 && this.ascii(s, this.pos + 1)) {
      this.buf[this.pos] = s.length;
      this.pos += 1 + s.length;
    } else this.utf8(s);
  }

  /**
   * `first second` (a span's name: operation and model) as one string field, without joining them
   * first: a joined string would be flattened again to be read.
   */
  joinedField(field: number, first: string, second: string): void {
    const len = first.length + 1 + second.length;
    if (len >= 128) {
      this.stringField(field, `${first} ${second}`);
      return;
    }
    this.tag(field, WIRE_LEN);
    // Room for both first: growing the buffer keeps only what is before `pos`.
    this.ensure(len + 1);
    const at = this.pos;
    if (this.ascii(first, at + 1) && this.ascii(second, at + 2 + first.length)) {
      this.buf[at] = len;
      this.buf[at + 1 + first.length] = 32;
      this.pos = at + 1 + len;
    } else this.utf8(`${first} ${second}`);
  }

  /** Copies `s` at `at` if it is all ASCII (as many bytes as chars); false, with bytes left behind, if not. */
  private ascii(s: string, at: number): boolean {
    const len = s.length;
    if (at + len > this.buf.length) this.ensure(at + len - this.pos);
    const b = this.buf;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c > 127) return false;
      b[at + i] = c;
    }
    return true;
  }

  /** A string's UTF-8 length and bytes, at `pos`. */
  private utf8(s: string): void {
    const n = Buffer.byteLength(s);
    this.varint(n);
    this.ensure(n);
    this.pos += this.buf.write(s, this.pos);
  }

  varintField(field: number, v: number): void {
    this.tag(field, WIRE_VARINT);
    this.varint(v);
  }

  fixed32Field(field: number, v: number): void {
    this.tag(field, WIRE_FIXED32);
    this.ensure(4);
    this.pos = this.buf.writeUInt32LE(v >>> 0, this.pos);
  }

  /** A time in Unix milliseconds (fractional) as OTLP's fixed64 nanoseconds. */
  timeField(field: number, unixMs: number): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    // Whole microseconds fit a double exactly; the 64-bit product is split so that no step loses bits.
    const us = Math.round(unixMs * 1000);
    const hiUs = Math.floor(us / 2 ** 32);
    const loUs = us - hiUs * 2 ** 32;
    const lo = loUs * 1000; // < 2^42, exact
    const loWord = lo % 2 ** 32;
    this.buf.writeUInt32LE(loWord, this.pos);
    this.buf.writeUInt32LE((hiUs * 1000 + (lo - loWord) / 2 ** 32) >>> 0, this.pos + 4);
    this.pos += 8;
  }

  /** Opens an embedded message; `end` writes its length once it is known. */
  begin(field: number): number {
    this.tag(field, WIRE_LEN);
    this.ensure(1);
    return this.pos++;
  }

  end(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 128) {
      this.buf[mark] = len;
      return;
    }
    // One byte was kept for the length; a longer message moves right to make room.
    const extra = varintSize(len) - 1;
    this.ensure(extra);
    this.buf.copyWithin(mark + 1 + extra, mark + 1, this.pos);
    this.pos += extra;
    let p = mark;
    let v = len;
    while (v >= 128) {
      this.buf[p++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    this.buf[p] = v;
  }

  /**
   * Opens an embedded message expected to take 128 to 16383 bytes (a span): two bytes are kept for its
   * length, so that `endLarge` need not move it.
   */
  beginLarge(field: number): number {
    this.tag(field, WIRE_LEN);
    this.ensure(2);
    const mark = this.pos;
    this.pos += 2;
    return mark;
  }

  endLarge(mark: number): void {
    const len = this.pos - mark - 2;
    if (len >= 128 && len < 16384) {
      this.buf[mark] = (len % 128) | 128;
      this.buf[mark + 1] = len >>> 7;
      return;
    }
    // Shorter or longer than expected: moved to where a one-byte length would have left it, then ended so.
    this.buf.copyWithin(mark + 1, mark + 2, this.pos);
    this.pos--;
    this.end(mark);
  }

  /** AnyValue (common.proto) in field `field`. */
  anyValue(field: number, v: AttrValue): void {
    const m = this.begin(field);
    this.anyValueBody(v);
    this.end(m);
  }

  /** AnyValue's fields: string 1, bool 2, int 3, double 4, array 5. */
  private anyValueBody(v: AttrValue): void {
    if (typeof v === 'string') this.stringField(1, v);
    else if (typeof v === 'boolean') this.varintField(2, v ? 1 : 0);
    else if (typeof v === 'number') this.number(v);
    else {
      const arr = this.begin(5);
      for (const s of v) this.anyValue(1, s);
      this.end(arr);
    }
  }

  private number(v: number): void {
    if (Number.isSafeInteger(v) && v >= 0) this.varintField(3, v);
    else if (Number.isSafeInteger(v)) {
      // int64 as two's complement: ten bytes on the wire.
      this.tag(3, WIRE_VARINT);
      this.ensure(10);
      let u = BigInt.asUintN(64, BigInt(v));
      while (u >= 128n) {
        this.buf[this.pos++] = Number(u % 128n) | 128;
        u /= 128n;
      }
      this.buf[this.pos++] = Number(u);
    } else {
      this.tag(4, WIRE_FIXED64);
      this.ensure(8);
      this.pos = this.buf.writeDoubleLE(v, this.pos);
    }
  }

  /** One KeyValue in the repeated field `field`. */
  attr(field: number, key: string, v: AttrValue): void {
    const m = this.begin(field);
    // The key's field and the value's tag, kept encoded; one byte is left for the value's length.
    const k = keyBytes(key);
    const n = k.length;
    this.ensure(n + 1);
    const at = this.pos;
    this.buf.set(k, at);
    this.pos = at + n + 1;
    this.anyValueBody(v);
    this.end(at + n);
    this.end(m);
  }

  /** What was written, as a buffer of its own, and the writer emptied for the next message. */
  take(): Buffer {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    this.pos = 0;
    return out;
  }
}

/** A lowercase hex digit's value. */
function nibble(c: number): number {
  return c <= 57 ? c - 48 : c - 87;
}

/** KeyValue.key (1) with `key`, then the tag of KeyValue.value (2). */
function keyBytes(key: string): Buffer {
  let b = KEYS.get(key);
  if (b !== undefined) return b;
  const w = new ProtoWriter(key.length * 3 + 8);
  w.stringField(1, key);
  w.tag(2, WIRE_LEN);
  b = w.take();
  if (KEYS.size < MAX_KEYS) KEYS.set(key, b);
  return b;
}

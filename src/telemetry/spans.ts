// Spans as the gateway keeps them: ids and a start time while the call runs, then the whole span
// written in OTLP protobuf at its end (proto-writer.ts) and queued for the official OTLP exporter's
// transport. The queue is bounded; what does not fit, or fails to export, is counted, never waited on.
import { randomFillSync } from 'node:crypto';
import { type AttrValue, ProtoWriter } from './proto-writer.ts';
import type { RemoteParent, TelemetryDeps } from './types.ts';

/** Spans waiting for export or being exported, at most; past it new spans are dropped (and counted). */
export const MAX_QUEUE = 2048;
/** Spans per export request. */
export const MAX_BATCH = 512;

/** OTLP SpanKind values (the API's enum plus one). */
export const KIND_SERVER = 2;
export const KIND_CLIENT = 3;
/** Work taken from a queue (a batch item): its own trace, linked to the call that queued it. */
export const KIND_CONSUMER = 5;
/** OTLP status codes. */
export const STATUS_ERROR = 2;

export interface OpenSpan {
  traceId: Buffer;
  /** The trace id as hex, for headers and the log row. */
  traceHex: string;
  spanId: Buffer;
  parentSpanId: Buffer | undefined;
  parentRemote: boolean;
  traceState: string | undefined;
  sampled: boolean;
  /** performance.now() time. */
  start: number;
}

/** Writes a span's attributes; `put` skips empty values, `set` writes whatever it is given. */
export interface AttrSink {
  set(key: string, value: AttrValue): void;
  put(key: string, value: AttrValue | null | undefined): void;
}

// Random ids drawn from one buffer filled in bulk: a call needs three or four of them.
const POOL = 8192;
let pool = Buffer.allocUnsafe(0);
let poolAt = 0;

function randomId(size: 8 | 16): Buffer {
  if (poolAt + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL));
    poolAt = 0;
  }
  // Each id a view of the pool, never reused: the pool is replaced, not refilled, once drawn.
  const id = pool.subarray(poolAt, poolAt + size);
  poolAt += size;
  // An all-zero id is invalid; 2^-64 is rare enough that setting one bit when it happens is enough.
  if (id[0] === 0 && id.readBigUInt64LE(0) === 0n) id[size - 1] = 1;
  return id;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The caller's span from W3C trace context headers; undefined when absent or malformed. */
export function parseTraceparent(
  header: string | string[] | undefined,
  state: string | string[] | undefined,
): RemoteParent | undefined {
  if (typeof header !== 'string') return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (m === null || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return undefined;
  if (m[2] === ZERO_TRACE || m[3] === ZERO_SPAN) return undefined;
  const ts = Array.isArray(state) ? state.join(',') : state;
  return {
    traceId: Buffer.from(m[2], 'hex'),
    traceHex: m[2],
    spanId: Buffer.from(m[3], 'hex'),
    sampled: (Number.parseInt(m[4], 16) & 1) === 1,
    traceState: ts === undefined || ts.trim() === '' ? undefined : ts.trim(),
  };
}

export function openRoot(parent: RemoteParent | undefined, sampled: boolean, start: number): OpenSpan {
  const traceId = parent?.traceId ?? randomId(16);
  return {
    traceId,
    traceHex: parent?.traceHex ?? traceId.toString('hex'),
    spanId: randomId(8),
    parentSpanId: parent?.spanId,
    parentRemote: parent !== undefined,
    traceState: parent?.traceState,
    sampled,
    start,
  };
}

export function openChild(parent: OpenSpan, start: number): OpenSpan {
  return {
    traceId: parent.traceId,
    traceHex: parent.traceHex,
    spanId: randomId(8),
    parentSpanId: parent.spanId,
    parentRemote: false,
    traceState: parent.traceState,
    sampled: parent.sampled,
    start,
  };
}

export function traceparentOf(s: OpenSpan): string {
  return `00-${s.traceHex}-${s.spanId.toString('hex')}-${s.sampled ? '01' : '00'}`;
}

/** Puts a span's trace context on an outgoing request. */
export function injectContext(s: OpenSpan, headers: Record<string, string>): void {
  headers.traceparent = traceparentOf(s);
  if (s.traceState !== undefined) headers.tracestate = s.traceState;
}

// Span flags (trace.proto): the W3C flags, and whether the parent is remote.
const FLAG_HAS_IS_REMOTE = 0x100;
const FLAG_IS_REMOTE = 0x200;

export interface SpanEnd {
  name: string;
  kind: number;
  /** performance.now() time. */
  end: number;
  status?: { code: number; message?: string };
  /** The call that created this work, when it runs in a trace of its own (trace.proto `Span.Link`). */
  link?: RemoteParent;
  attributes(sink: AttrSink): void;
}

/** Writes one finished span (trace.proto `Span`) as the body of a ScopeSpans.spans entry. */
export class SpanWriter implements AttrSink {
  private readonly w = new ProtoWriter();
  private readonly origin = performance.timeOrigin;

  set(key: string, value: AttrValue): void {
    this.w.attr(9, key, value);
  }

  put(key: string, value: AttrValue | null | undefined): void {
    if (value !== undefined && value !== null && value !== '') this.w.attr(9, key, value);
  }

  write(s: OpenSpan, e: SpanEnd): Buffer {
    const w = this.w;
    w.pos = 0;
    w.bytesField(1, s.traceId);
    w.bytesField(2, s.spanId);
    if (s.traceState !== undefined) w.stringField(3, s.traceState);
    if (s.parentSpanId !== undefined) w.bytesField(4, s.parentSpanId);
    w.stringField(5, e.name);
    w.varintField(6, e.kind);
    w.timeField(7, this.origin + s.start);
    w.timeField(8, this.origin + e.end);
    e.attributes(this);
    if (e.link !== undefined) {
      const l = w.begin(13);
      w.bytesField(1, e.link.traceId);
      w.bytesField(2, e.link.spanId);
      if (e.link.traceState !== undefined) w.stringField(3, e.link.traceState);
      // Link.flags: the linked span's sampled flag, and that it is remote (another call's).
      w.fixed32Field(6, (e.link.sampled ? 1 : 0) | FLAG_HAS_IS_REMOTE | FLAG_IS_REMOTE);
      w.end(l);
    }
    if (e.status !== undefined) {
      const m = w.begin(15);
      if (e.status.message !== undefined) w.stringField(2, e.status.message);
      w.varintField(3, e.status.code);
      w.end(m);
    }
    w.fixed32Field(16, (s.sampled ? 1 : 0) | FLAG_HAS_IS_REMOTE | (s.parentRemote ? FLAG_IS_REMOTE : 0));
    return w.take();
  }
}

/** The export side the queue hands batches to: the official OTLP exporter, wrapped (exporter.ts). */
export interface BatchExporter {
  export(spans: Buffer[], done: (ok: boolean) => void): void;
  shutdown(): Promise<void>;
}

/**
 * Spans waiting for export. A batch goes when it is full or a second after its first span; exports
 * run one after another's start without waiting, bounded by MAX_QUEUE spans queued or in flight.
 */
export class SpanQueue {
  private waiting: Buffer[] = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly exports = new Set<Promise<void>>();

  constructor(
    private readonly exporter: BatchExporter,
    private readonly deps: TelemetryDeps,
    private readonly delayMs = 1000,
  ) {}

  push(span: Buffer): void {
    if (this.waiting.length + this.inFlight >= MAX_QUEUE) {
      this.deps.onDropped(1, 'queue_full');
      return;
    }
    this.waiting.push(span);
    if (this.waiting.length >= MAX_BATCH) this.send();
    else this.timer ??= setTimeout(() => this.send(), this.delayMs).unref();
  }

  private send(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      this.inFlight += batch.length;
      const done = new Promise<void>((resolve) => {
        this.exporter.export(batch, (ok) => {
          this.inFlight -= batch.length;
          if (!ok) this.deps.onDropped(batch.length, 'export_failed');
          resolve();
        });
      });
      this.exports.add(done);
      void done.then(() => this.exports.delete(done));
    }
  }

  /** Sends what waits and resolves when every export started so far has settled. */
  async flush(): Promise<void> {
    this.send();
    await Promise.all([...this.exports]);
  }

  async shutdown(): Promise<void> {
    await this.flush();
    await this.exporter.shutdown();
  }
}

// Spans as the gateway keeps them: ids and a start time while the call runs, then the whole span
// written in OTLP protobuf at its end (proto-writer.ts) straight into the export queue (queue.ts).
// Ids are kept as the lowercase hex the `traceparent` header carries; the writer turns them into bytes.
import { randomFillSync } from 'node:crypto';
import type { AttrValue, ProtoWriter } from './proto-writer.ts';
import type { SpanQueue } from './queue.ts';
import type { RemoteParent } from './types.ts';

/** OTLP SpanKind values (the API's enum plus one). */
export const KIND_SERVER = 2;
export const KIND_CLIENT = 3;
/** Work taken from a queue (a batch item): its own trace, linked to the call that queued it. */
export const KIND_CONSUMER = 5;
/** OTLP status codes. */
export const STATUS_ERROR = 2;

export interface OpenSpan {
  traceHex: string;
  spanHex: string;
  parentHex: string | undefined;
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

// Random ids cut from one hex string made in bulk: a call needs three or four of them.
const POOL_BYTES = 4096;
let pool = '';
let poolAt = 0;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

function randomHex(chars: 16 | 32): string {
  if (poolAt + chars > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES)).toString('hex');
    poolAt = 0;
  }
  const id = pool.slice(poolAt, poolAt + chars);
  poolAt += chars;
  // An all-zero id is invalid; 2^-64 is rare enough that setting one bit when it happens is enough.
  return id === ZERO_SPAN || id === ZERO_TRACE ? `${id.slice(0, -1)}1` : id;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

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
    traceHex: m[2],
    spanHex: m[3],
    sampled: (Number.parseInt(m[4], 16) & 1) === 1,
    traceState: ts === undefined || ts.trim() === '' ? undefined : ts.trim(),
  };
}

export function openRoot(parent: RemoteParent | undefined, sampled: boolean, start: number): OpenSpan {
  return {
    traceHex: parent?.traceHex ?? randomHex(32),
    spanHex: randomHex(16),
    parentHex: parent?.spanHex,
    parentRemote: parent !== undefined,
    traceState: parent?.traceState,
    sampled,
    start,
  };
}

export function openChild(parent: OpenSpan, start: number): OpenSpan {
  return {
    traceHex: parent.traceHex,
    spanHex: randomHex(16),
    parentHex: parent.spanHex,
    parentRemote: false,
    traceState: parent.traceState,
    sampled: parent.sampled,
    start,
  };
}

export function traceparentOf(s: OpenSpan): string {
  return `00-${s.traceHex}-${s.spanHex}-${s.sampled ? '01' : '00'}`;
}

/** Puts a span's trace context on an outgoing request. */
export function injectContext(s: OpenSpan, headers: Record<string, string>): void {
  headers.traceparent = traceparentOf(s);
  if (s.traceState !== undefined) headers.tracestate = s.traceState;
}

// Span flags (trace.proto): the W3C flags, and whether the parent is remote.
const FLAG_HAS_IS_REMOTE = 0x100;
const FLAG_IS_REMOTE = 0x200;

/**
 * Writes finished spans (trace.proto `Span`) into the queue, one at a time: `open` writes what comes
 * before the attributes, the AttrSink methods the attributes, `close` the rest and queues the span.
 */
export class SpanWriter implements AttrSink {
  private w: ProtoWriter | undefined;
  private readonly origin = performance.timeOrigin;

  constructor(private readonly queue: SpanQueue) {}

  /**
   * The span's name is `name`, or `name model` (the conventions' `{operation} {model}`) when a model
   * is given. False when the queue is full: the span is dropped (and counted), and nothing more is to
   * be written.
   */
  open(s: OpenSpan, name: string, model: string | undefined, kind: number, end: number): boolean {
    const w = this.queue.open();
    this.w = w;
    if (w === undefined) return false;
    w.hexField(1, s.traceHex);
    w.hexField(2, s.spanHex);
    if (s.traceState !== undefined) w.stringField(3, s.traceState);
    if (s.parentHex !== undefined) w.hexField(4, s.parentHex);
    if (model === undefined) w.stringField(5, name);
    else w.joinedField(5, name, model);
    w.varintField(6, kind);
    w.timeField(7, this.origin + s.start);
    w.timeField(8, this.origin + end);
    return true;
  }

  set(key: string, value: AttrValue): void {
    this.w?.attr(9, key, value);
  }

  put(key: string, value: AttrValue | null | undefined): void {
    if (value !== undefined && value !== null && value !== '') this.w?.attr(9, key, value);
  }

  /**
   * The span's status (an error's code, with a message for the server span) and the call that created
   * its work when it runs in a trace of its own (trace.proto `Span.Link`).
   */
  close(s: OpenSpan, status: number | undefined, message: string | undefined, link: RemoteParent | undefined): void {
    const w = this.w;
    if (w === undefined) return;
    this.w = undefined;
    if (link !== undefined) {
      const l = w.begin(13);
      w.hexField(1, link.traceHex);
      w.hexField(2, link.spanHex);
      if (link.traceState !== undefined) w.stringField(3, link.traceState);
      // Link.flags: the linked span's sampled flag, and that it is remote (another call's).
      w.fixed32Field(6, (link.sampled ? 1 : 0) | FLAG_HAS_IS_REMOTE | FLAG_IS_REMOTE);
      w.end(l);
    }
    if (status !== undefined) {
      const m = w.begin(15);
      if (message !== undefined) w.stringField(2, message);
      w.varintField(3, status);
      w.end(m);
    }
    w.fixed32Field(16, (s.sampled ? 1 : 0) | FLAG_HAS_IS_REMOTE | (s.parentRemote ? FLAG_IS_REMOTE : 0));
    this.queue.close();
  }
}

// Spans waiting for export, written in place: each span goes straight into the buffer of the batch
// it will be sent in, behind room kept at the front for the request's envelope (exporter.ts), so a
// batch is sent as it was written, with no buffer per span and no copy. The queue is bounded; what
// does not fit, or fails to export, is counted, never waited on.
import { ProtoWriter } from './proto-writer.ts';
import type { TelemetryDeps } from './types.ts';

/** Spans waiting for export or being exported, at most; past it new spans are dropped (and counted). */
export const MAX_QUEUE = 2048;
/** Spans per export request. */
export const MAX_BATCH = 512;

/** Writers kept for reuse, at most: one batch fills while another is sent, so two are rarely short. */
const MAX_SPARE = 2;
/**
 * A batch's buffer kept, or started with, at most: a full batch of plain spans takes some 300 KB, and
 * one with captured message content may take megabytes, which are not kept between batches.
 */
const MAX_KEPT_BYTES = 1024 * 1024;

/** Spans written one after another as ScopeSpans.spans entries, from `room` on in `w`'s buffer. */
export interface SpanBatch {
  readonly w: ProtoWriter;
  /** Bytes left free at the front for the request envelope. */
  readonly room: number;
  count: number;
}

/** The export side the queue hands batches to: the official OTLP exporter, wrapped (exporter.ts). */
export interface BatchExporter {
  /** Bytes the request envelope around a batch takes at most. */
  readonly room: number;
  export(batch: SpanBatch, done: (ok: boolean) => void): void;
  shutdown(): Promise<void>;
}

/**
 * A batch goes when it is full or a second after its first span; exports run one after another's
 * start without waiting, bounded by MAX_QUEUE spans queued or in flight.
 */
export class SpanQueue {
  private batch: SpanBatch | undefined;
  /** Where the span being written starts, and its length's place; -1 when no span is open. */
  private spanAt = -1;
  private lengthAt = 0;
  private inFlight = 0;
  /** A new batch's buffer starts as large as the last one grew (to MAX_KEPT_BYTES), so it is rarely copied. */
  private size = 16 * 1024;
  /**
   * Writers of batches the collector took, to write the next batches in: a new buffer of that size
   * costs more than the spans written into it (fresh pages, and a GC of external memory now and then).
   * Only a batch whose export succeeded is written again: the collector answered it, so it was sent
   * whole; after a failure the transport may still hold the bytes, and the buffer is left to the GC.
   */
  private readonly spare: ProtoWriter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly exports = new Set<Promise<void>>();

  constructor(
    private readonly exporter: BatchExporter,
    private readonly deps: TelemetryDeps,
    private readonly delayMs = 1000,
  ) {}

  /**
   * Opens one more span and gives the writer to write its fields with (then `close`); undefined when
   * the queue is full, and the span is counted as dropped.
   */
  open(): ProtoWriter | undefined {
    let b = this.batch;
    this.discardOpen();
    if ((b === undefined ? 0 : b.count) + this.inFlight >= MAX_QUEUE) {
      this.deps.onDropped(1, 'queue_full');
      return undefined;
    }
    if (b === undefined) {
      const room = this.exporter.room;
      b = { w: this.spare.pop() ?? new ProtoWriter(Math.max(this.size, room + 1024)), room, count: 0 };
      b.w.pos = room;
      this.batch = b;
    }
    this.spanAt = b.w.pos;
    this.lengthAt = b.w.beginLarge(2);
    return b.w;
  }

  /** Ends the span opened last: it is queued. */
  close(): void {
    const b = this.batch;
    if (b === undefined || this.spanAt < 0) return;
    b.w.endLarge(this.lengthAt);
    this.spanAt = -1;
    b.count++;
    if (b.count >= MAX_BATCH) this.send();
    else this.timer ??= setTimeout(() => this.send(), this.delayMs).unref();
  }

  /** A span opened and never closed (writing it threw) is not sent. */
  private discardOpen(): void {
    if (this.batch !== undefined && this.spanAt >= 0) this.batch.w.pos = this.spanAt;
    this.spanAt = -1;
  }

  private send(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.discardOpen();
    const batch = this.batch;
    if (batch === undefined || batch.count === 0) return;
    this.batch = undefined;
    this.size = Math.min(batch.w.buf.length, MAX_KEPT_BYTES);
    const count = batch.count;
    this.inFlight += count;
    const done = new Promise<void>((resolve) => {
      this.exporter.export(batch, (ok) => {
        this.inFlight -= count;
        if (!ok) this.deps.onDropped(count, 'export_failed');
        else if (this.spare.length < MAX_SPARE && batch.w.buf.length <= MAX_KEPT_BYTES) this.spare.push(batch.w);
        resolve();
      });
    });
    this.exports.add(done);
    void done.then(() => this.exports.delete(done));
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

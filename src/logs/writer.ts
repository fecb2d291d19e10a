// Request logs are written behind the response: callers enqueue and move on; rows are inserted in
// batches (every FLUSH_MS or BATCH_ROWS rows, whichever comes first). `flush()` on shutdown
// drains everything still queued.
import type { Logger } from 'pino';
import type { RequestLogRow, RequestLogStore } from '../store/request-logs.ts';

const FLUSH_MS = 100;
const BATCH_ROWS = 200;
// Under a sustained database outage keep memory bounded: beyond this, the oldest rows are dropped.
const MAX_QUEUED = 100_000;

/** Where the proxy hands request-log rows; never awaited on the request path. */
export interface RequestLogSink {
  /**
   * `line` is the row's journal line (request-log-row.ts `logLine`) when the caller has made it
   * already: a sink that needs the row as text takes it instead of serializing the row again.
   */
  enqueue(row: RequestLogRow, line?: string): void;
  /** Resolves once every row enqueued so far is stored (or given up on). */
  flush(): Promise<void>;
  /** Flushes, then releases what the sink holds (a worker thread). */
  close(): Promise<void>;
  readonly pending: number;
  /** Rows (or, for a crashed worker, at least one) given up on so far; the journal keeps those. */
  readonly failed: number;
}

export class LogWriter implements RequestLogSink {
  readonly #store: RequestLogStore;
  readonly #logger: Logger;
  #queue: RequestLogRow[] = [];
  #timer: NodeJS.Timeout | undefined;
  #inflight: Promise<void> = Promise.resolve();
  #dropped = 0;
  #failed = 0;

  constructor(store: RequestLogStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** Never awaited by callers; the row is persisted within about FLUSH_MS. */
  enqueue(row: RequestLogRow): void {
    this.#queue.push(row);
    if (this.#queue.length > MAX_QUEUED) {
      this.#queue.shift();
      this.#dropped++;
      this.#failed++;
    }
    if (this.#queue.length >= BATCH_ROWS) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.#timer.unref();
    }
  }

  get pending(): number {
    return this.#queue.length;
  }

  get failed(): number {
    return this.#failed;
  }

  /** Writes everything queued so far; resolves once those rows are stored (or given up on). */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = this.#queue;
    this.#queue = [];
    // Chained so batches are written in order and flush() waits for earlier writes too.
    this.#inflight = this.#inflight.then(() => this.#write(batch));
    return this.#inflight;
  }

  close(): Promise<void> {
    return this.flush();
  }

  async #write(batch: RequestLogRow[]): Promise<void> {
    if (this.#dropped > 0) {
      this.#logger.warn({ dropped: this.#dropped }, 'request log queue overflowed; oldest rows dropped');
      this.#dropped = 0;
    }
    if (batch.length === 0) return;
    try {
      await this.#store.insertMany(batch);
    } catch (err) {
      // One retry covers a transient error (e.g. SQLite busy); a second failure is logged, not rethrown,
      // because nobody awaits enqueue and the proxy must not fail on logging.
      try {
        await this.#store.insertMany(batch);
      } catch {
        this.#failed += batch.length;
        this.#logger.error({ err, rows: batch.length }, 'failed to write request log rows');
      }
    }
  }
}

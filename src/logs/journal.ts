// Crash safety for request-log rows. Rows wait in memory (and in the SQLite worker) for up to a
// batch interval before they are committed, so a kill -9 used to lose the rows of calls that had
// already been answered. Each row is now also appended to a per-process journal file with a
// synchronous write before it is queued: the write lands in the page cache, which outlives the
// process. The journal is cut into segments; a segment is deleted once the store has committed
// every row in it, and a segment left behind by a dead process is replayed on the next start
// (inserts ignore ids already stored, so replaying a row twice is harmless).
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { lineRow, logLine, type RequestLogRow } from '../store/request-log-row.ts';
import { processAlive } from '../util/process-alive.ts';
import type { RequestLogSink } from './writer.ts';

/** A segment is closed and handed to the store this often while rows arrive... */
const ROTATE_MS = 1000;
/** ...or after this many rows, whichever comes first, so segments (and replays) stay small. */
const ROTATE_ROWS = 5000;

const SEGMENT = /^journal-(\d+)-(\d+)-(\d+)\.ndjson$/;
/** Segments the store refused (database unreachable) are offered again after this, doubling to a minute. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;

/** Instances of this process with an open journal (tests run several gateways in one process). */
const OPEN_HERE = new Set<string>();
let instances = 0;

interface Segment {
  path: string;
  rows: number;
  /**
   * The store's count of given-up rows when this segment got its first row: the writer flushes on
   * its own timer too, so a failure may come before this segment is handed over, and must still
   * keep it.
   */
  failedBefore: number;
}

/**
 * Segments left by processes that are gone. Our own pid on a segment no open instance here owns is
 * a previous incarnation (a container restarting as pid 1) or an instance that closed with rows
 * its store refused.
 */
function orphanSegments(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const m = SEGMENT.exec(name);
      if (!m) return false;
      const pid = Number(m[1]);
      if (pid === process.pid) return !OPEN_HERE.has(m[2]);
      return !processAlive(pid);
    })
    .sort()
    .map((name) => join(dir, name));
}

/** A segment's rows, whichever version wrote it (see `lineRow`). */
function readRows(path: string, logger: Logger): RequestLogRow[] {
  const rows: RequestLogRow[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    try {
      rows.push(lineRow(line));
    } catch {
      // Only the last line can be cut short, by a kill in the middle of its write.
      logger.warn({ path }, 'skipped a partial request-log journal line');
    }
  }
  return rows;
}

export class JournaledSink implements RequestLogSink {
  readonly #dir: string;
  readonly #inner: RequestLogSink;
  readonly #logger: Logger;
  /** Unique among this pid's instances, past and present. */
  readonly #instance = `${Date.now()}${String(instances++ % 1000).padStart(3, '0')}`;
  #seq = 0;
  #fd: number;
  #current: Segment;
  /** Closed segments whose rows may not all be committed yet. */
  #closed: Segment[] = [];
  #rotating: Promise<void> = Promise.resolve();
  readonly #timer: NodeJS.Timeout;
  /** Segments whose rows the store gave up on: replayed while this process runs, until they go in. */
  #unsent: string[] = [];
  #retryTimer: NodeJS.Timeout | undefined;
  #retryMs = RETRY_FIRST_MS;

  private constructor(dir: string, inner: RequestLogSink, logger: Logger) {
    this.#dir = dir;
    this.#inner = inner;
    this.#logger = logger;
    OPEN_HERE.add(this.#instance);
    [this.#fd, this.#current] = this.#open();
    this.#timer = setInterval(() => {
      if (this.#current.rows > 0) void this.#rotate();
    }, ROTATE_MS);
    this.#timer.unref();
  }

  /**
   * Replays what dead processes left in `dir` into `inner` (awaiting the commit), then journals
   * every row this process enqueues.
   */
  static async open(dir: string, inner: RequestLogSink, logger: Logger): Promise<JournaledSink> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const orphans = orphanSegments(dir);
    const sink = new JournaledSink(dir, inner, logger);
    if (orphans.length > 0) {
      let count = 0;
      for (const path of orphans) {
        for (const row of readRows(path, logger)) {
          inner.enqueue(row);
          count++;
        }
      }
      const failedBefore = inner.failed;
      await inner.flush();
      if (inner.failed === failedBefore) for (const path of orphans) unlinkSync(path);
      logger.info({ rows: count, segments: orphans.length }, 'replayed the request-log journal of a stopped process');
    }
    return sink;
  }

  enqueue(row: RequestLogRow, line = logLine(row)): void {
    // Written now, one append per row, not grouped per task or loop turn: the proxy enqueues a
    // row just before it writes the answer, in the same task, and node writes an answer to the
    // socket inside that call (the kernel may send it before the task ends). So any deferred
    // append, to a microtask or a later turn, would come after an answer the caller may already
    // hold, and a kill -9 in between loses that row (a microtask deferral did, 1 in a few runs of
    // the kill -9 test). Grouping needs the answers held back until the group is written; what it
    // could save is measured by bench/log-path.ts (about 1 us of a 2.6 us append per row, at 8
    // rows a turn). The line goes on to the writer, which hands it to the log worker as it is.
    writeSync(this.#fd, `${line}\n`);
    if (this.#current.rows++ === 0) this.#current.failedBefore = this.#inner.failed;
    this.#inner.enqueue(row, line);
    if (this.#current.rows >= ROTATE_ROWS) void this.#rotate();
  }

  get pending(): number {
    return this.#inner.pending;
  }

  get failed(): number {
    return this.#inner.failed;
  }

  flush(): Promise<void> {
    return this.#rotate();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    await this.#rotate();
    await this.#inner.close();
    closeSync(this.#fd);
    if (this.#current.rows === 0) unlinkSync(this.#current.path);
    OPEN_HERE.delete(this.#instance);
  }

  #open(): [number, Segment] {
    const path = join(
      this.#dir,
      `journal-${process.pid}-${this.#instance}-${String(this.#seq++).padStart(6, '0')}.ndjson`,
    );
    return [openSync(path, 'a', 0o600), { path, rows: 0, failedBefore: this.#inner.failed }];
  }

  /** Starts a new segment and deletes the closed ones once the store has committed their rows. */
  #rotate(): Promise<void> {
    if (this.#current.rows > 0) {
      closeSync(this.#fd);
      this.#closed.push(this.#current);
      [this.#fd, this.#current] = this.#open();
    }
    const done = this.#closed.slice();
    // Chained: a later flush must not delete segments before an earlier one has been committed.
    this.#rotating = this.#rotating.then(async () => {
      if (done.length === 0) return this.#inner.flush();
      const failedBefore = Math.min(...done.map((d) => d.failedBefore));
      await this.#inner.flush();
      this.#closed = this.#closed.filter((s) => !done.includes(s));
      // A batch the store gave up on keeps its segments on disk: they are offered again shortly
      // (the database may be back by then), and the next start replays whatever is still there.
      if (this.#inner.failed !== failedBefore) {
        this.#unsent.push(...done.map((d) => d.path));
        this.#scheduleRetry();
        return;
      }
      for (const s of done) {
        try {
          unlinkSync(s.path);
        } catch (err) {
          this.#logger.warn({ err, path: s.path }, 'could not delete a committed request-log journal segment');
        }
      }
    });
    return this.#rotating;
  }

  #scheduleRetry(): void {
    if (this.#retryTimer !== undefined) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#rotating = this.#rotating.then(() => this.#retry());
    }, this.#retryMs);
    this.#retryTimer.unref();
  }

  /** Offers the refused segments' rows again (inserts skip ids already stored); deletes them once in. */
  async #retry(): Promise<void> {
    const paths = this.#unsent;
    this.#unsent = [];
    if (paths.length === 0) return;
    for (const path of paths) for (const row of readRows(path, this.#logger)) this.#inner.enqueue(row);
    const failedBefore = this.#inner.failed;
    await this.#inner.flush();
    if (this.#inner.failed !== failedBefore) {
      this.#unsent.push(...paths);
      this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
      this.#scheduleRetry();
      return;
    }
    this.#retryMs = RETRY_FIRST_MS;
    this.#logger.info({ segments: paths.length }, 'request-log rows held in the journal are now stored');
    for (const path of paths) {
      try {
        unlinkSync(path);
      } catch (err) {
        this.#logger.warn({ err, path }, 'could not delete a committed request-log journal segment');
      }
    }
  }
}

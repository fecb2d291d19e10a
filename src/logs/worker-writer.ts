// Request-log writer for SQLite mode: the rows' journal lines (made once per row, by the journal)
// are handed to a worker thread (sqlite-log-worker.ts) as one string per loop turn, so the proxy
// thread neither runs the inserts nor clones row values for the thread, nor keeps rows alive long
// enough for the garbage collector to promote them. Rows enqueued before the worker has opened the
// database are held as they are; if it never gets there (bad path, native failure) they and every
// later row go to the in-thread fallback writer.
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { logLine, type RequestLogRow } from '../store/request-log-row.ts';
import type { FromLogWorker, ToLogWorker } from './worker-protocol.ts';
import type { RequestLogSink } from './writer.ts';

// The thread's allocations are short-lived (one batch of lines at a time): a young generation of
// 6 MB instead of V8's default 32 MB is plenty, and under load the default grew to its maximum and
// stayed resident.
const resourceLimits = { maxYoungGenerationSizeMb: 6 };

function spawn(file: string): Worker {
  const workerData = { file };
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./sqlite-log-worker.js', here), { workerData, resourceLimits });
  // Running from sources (tests, no build): workers do not inherit tsx's loader on Node 20, so the
  // worker registers it before importing its TypeScript entry.
  const entry = JSON.stringify(new URL('./sqlite-log-worker.ts', here).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${tsx}).then((m) => { m.register(); return import(${entry}); })`;
  return new Worker(boot, { eval: true, workerData, resourceLimits });
}

type State = 'starting' | 'ready' | 'dead';

export class WorkerLogWriter implements RequestLogSink {
  readonly #logger: Logger;
  readonly #worker: Worker;
  #state: State = 'starting';
  /** Resolves when the worker is ready or dead, whichever comes first. */
  readonly #settled: Promise<void>;
  #settle!: () => void;
  /** Rows enqueued before the worker was ready, with their lines when the caller had them. */
  #early: Array<{ row: RequestLogRow; line: string | undefined }> = [];
  /** Lines of the rows enqueued this loop turn, posted together. */
  #lines: string[] = [];
  #posting = false;
  #nextFlushId = 0;
  readonly #waiting = new Map<number, () => void>();
  #closed: Promise<void> | undefined;
  #failed = 0;
  /** Takes over when the worker dies, so later rows are still stored. */
  readonly #fallback: RequestLogSink;

  constructor(file: string, logger: Logger, fallback: RequestLogSink) {
    this.#logger = logger;
    this.#fallback = fallback;
    this.#settled = new Promise((resolve) => {
      this.#settle = resolve;
    });
    this.#worker = spawn(file);
    // Shutdown goes through close(); a forgotten writer must not keep the process alive.
    this.#worker.unref();
    this.#worker.on('message', (msg: FromLogWorker) => this.#onMessage(msg));
    this.#worker.on('error', (err) => {
      this.#logger.error({ err }, 'request log worker failed; writing logs on the main thread from now on');
      this.#die();
    });
    this.#worker.on('exit', () => this.#die());
  }

  enqueue(row: RequestLogRow, line?: string): void {
    if (this.#state === 'dead') this.#fallback.enqueue(row, line);
    else if (this.#state === 'starting') this.#early.push({ row, line });
    else {
      this.#lines.push(line ?? logLine(row));
      if (!this.#posting) {
        this.#posting = true;
        setImmediate(() => this.#post());
      }
    }
  }

  get pending(): number {
    return this.#early.length + this.#lines.length + this.#fallback.pending;
  }

  get failed(): number {
    return this.#failed + this.#fallback.failed;
  }

  /** Resolves once every row enqueued so far is committed. */
  async flush(): Promise<void> {
    if (this.#state === 'starting') {
      this.#worker.ref();
      await this.#settled;
    }
    if (this.#state === 'dead') return this.#fallback.flush();
    this.#post();
    const id = this.#nextFlushId++;
    return new Promise((resolve) => {
      // Held while someone waits for an answer, so the loop does not end under them.
      this.#worker.ref();
      this.#waiting.set(id, resolve);
      this.#send({ type: 'flush', id });
    });
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#worker.ref();
      await this.#settled;
      if (this.#state === 'ready') {
        this.#post();
        const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
        this.#send({ type: 'close' });
        await exited;
      }
      await this.#fallback.close();
    })();
    return this.#closed;
  }

  #post(): void {
    this.#posting = false;
    if (this.#lines.length === 0 || this.#state !== 'ready') return;
    // One string: cloned for the thread as one copy of its characters, however many rows it holds.
    const lines = this.#lines.join('\n');
    this.#lines = [];
    this.#send({ type: 'rows', lines });
  }

  #send(msg: ToLogWorker): void {
    this.#worker.postMessage(msg);
  }

  #onMessage(msg: FromLogWorker): void {
    switch (msg.type) {
      case 'ready': {
        this.#state = 'ready';
        const early = this.#early;
        this.#early = [];
        for (const e of early) this.enqueue(e.row, e.line);
        if (this.#waiting.size === 0 && !this.#closed) this.#worker.unref();
        this.#settle();
        break;
      }
      case 'flushed':
        this.#waiting.get(msg.id)?.();
        this.#waiting.delete(msg.id);
        if (this.#waiting.size === 0 && !this.#closed) this.#worker.unref();
        break;
      case 'error':
        this.#failed += msg.rows;
        this.#logger.error({ rows: msg.rows, err: msg.message }, 'failed to write request log rows');
        break;
      case 'closed':
        break;
    }
  }

  #die(): void {
    if (this.#state === 'dead') return;
    // Whatever the worker held when it died is lost from memory; counting it keeps the journal.
    if (this.#state === 'ready' && !this.#closed) this.#failed++;
    this.#state = 'dead';
    // Rows posted to a worker that then crashed are lost with it (inserts that fail are caught and
    // retried inside the worker, so only a crash of the thread itself gets here after startup).
    for (const e of this.#early) this.#fallback.enqueue(e.row, e.line);
    this.#early = [];
    for (const resolve of this.#waiting.values()) resolve();
    this.#waiting.clear();
    this.#settle();
  }
}

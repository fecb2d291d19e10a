// Worker thread that owns the request-log inserts in SQLite mode. An insert with its bodies costs
// 15-25 us of CPU (most of it in SQLite's page and WAL writes), which on the event loop is a tenth
// of a pass-through call; here it runs beside the proxy instead. Rows arrive as the lines the
// journal holds (JSON arrays of the insert's values), one string per loop turn; they are written in
// batches (every FLUSH_MS or BATCH_ROWS), and every `flush` request is answered once everything
// received before it is committed.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { lineValues } from '../store/request-log-row.ts';
import { type LogValue, sqliteLogBatchInsert } from '../store/request-log-sqlite.ts';
import type { ToLogWorker } from './worker-protocol.ts';

const FLUSH_MS = 100;
const BATCH_ROWS = 200;

interface Init {
  file: string;
}

if (!parentPort) throw new Error('sqlite-log-worker must run as a worker thread');
const port = parentPort;
const init = workerData as Init;
const db = new SQLite(init.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
// better-sqlite3 builds SQLite with a 16 MB page cache per connection; appending rows needs the
// pages at the right edge of the table and its indexes, not the whole tree (with 16 MB the thread
// held ~15 MB more under load for no measurable CPU difference).
db.pragma('cache_size = -2000');
const insertAll = sqliteLogBatchInsert(db);

port.postMessage({ type: 'ready' });

let queue: LogValue[][] = [];
let timer: NodeJS.Timeout | undefined;

function write(): void {
  if (timer) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (queue.length === 0) return;
  const batch = queue;
  queue = [];
  try {
    insertAll(batch);
  } catch (first) {
    // One retry covers a transient error (SQLITE_BUSY past the timeout); a second failure is
    // reported to the main thread, which logs it: nobody awaits a log row.
    try {
      insertAll(batch);
    } catch {
      port.postMessage({ type: 'error', rows: batch.length, message: String(first) });
    }
  }
}

function take(lines: string): void {
  let bad = 0;
  let first: unknown;
  for (const line of lines.split('\n')) {
    try {
      queue.push(lineValues(line));
    } catch (err) {
      // The proxy thread made these lines; a bad one is a bug, reported like a failed insert.
      bad++;
      first ??= err;
    }
  }
  if (bad > 0) port.postMessage({ type: 'error', rows: bad, message: String(first) });
}

port.on('message', (msg: ToLogWorker) => {
  switch (msg.type) {
    case 'rows':
      take(msg.lines);
      if (queue.length >= BATCH_ROWS) write();
      else timer ??= setTimeout(write, FLUSH_MS);
      break;
    case 'flush':
      write();
      port.postMessage({ type: 'flushed', id: msg.id });
      break;
    case 'close':
      write();
      db.close();
      port.postMessage({ type: 'closed' });
      port.close();
      break;
  }
});

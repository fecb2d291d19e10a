// Messages between the request-log writer and its SQLite worker thread.

export type ToLogWorker =
  /** One loop turn's rows: their journal lines (request-log-row.ts `logLine`) joined by newlines. */
  { type: 'rows'; lines: string } | { type: 'flush'; id: number } | { type: 'close' };

export type FromLogWorker =
  | { type: 'ready' }
  | { type: 'flushed'; id: number }
  | { type: 'closed' }
  | { type: 'error'; rows: number; message: string };

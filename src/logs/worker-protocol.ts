// Messages between the request-log writer and its SQLite worker thread.
import type { LogValue } from '../store/request-log-sqlite.ts';

export type ToLogWorker = { type: 'rows'; rows: LogValue[][] } | { type: 'flush'; id: number } | { type: 'close' };

export type FromLogWorker =
  | { type: 'ready' }
  | { type: 'flushed'; id: number }
  | { type: 'closed' }
  | { type: 'error'; rows: number; message: string };

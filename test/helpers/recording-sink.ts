// A request-log sink that only keeps what reaches it: the stand-in a log writer test hands the worker
// writer as its fallback (anything recorded here means the worker path was not taken), or reads back.
import type { RequestLogSink } from '../../src/logs/writer.ts';
import type { RequestLogRow } from '../../src/store/request-logs.ts';

export class RecordingSink implements RequestLogSink {
  rows: RequestLogRow[] = [];
  enqueue(r: RequestLogRow): void {
    this.rows.push(r);
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
  get pending(): number {
    return 0;
  }
  get failed(): number {
    return 0;
  }
}

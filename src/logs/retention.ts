// Log retention: rows older than SWITCHYARD_LOG_RETENTION_DAYS are deleted and bodies older than
// SWITCHYARD_LOG_BODY_RETENTION_DAYS are emptied, daily (a `logs.retention` job: once per cluster). Work is done in batches
// of BATCH rows with a pause between them, so the log writer (one writer at a time on SQLite) is
// never held up for more than one small statement. Rollups are separate tables and stay.
import type { Logger } from 'pino';
import type { RequestLogStore } from '../store/request-logs.ts';

const BATCH = 1000;
const PAUSE_MS = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionPolicy {
  rowDays: number;
  bodyDays: number;
}

export class LogRetention {
  readonly #store: RequestLogStore;
  readonly #policy: RetentionPolicy;
  readonly #logger: Logger;
  #running: Promise<{ rows: number; bodies: number }> | undefined;
  #stopped = false;

  constructor(store: RequestLogStore, policy: RetentionPolicy, logger: Logger) {
    this.#store = store;
    this.#policy = policy;
    this.#logger = logger;
  }

  /** One full sweep; a sweep already running is joined, not doubled. */
  sweep(now: number = Date.now()): Promise<{ rows: number; bodies: number }> {
    this.#running ??= this.#sweep(now).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running?.catch(() => {});
  }

  async #sweep(now: number): Promise<{ rows: number; bodies: number }> {
    const cutoffs = {
      rowsBefore: new Date(now - this.#policy.rowDays * DAY_MS).toISOString(),
      bodiesBefore: new Date(now - this.#policy.bodyDays * DAY_MS).toISOString(),
    };
    const total = { rows: 0, bodies: 0 };
    try {
      for (;;) {
        if (this.#stopped) break;
        const done = await this.#store.sweep(cutoffs, BATCH);
        total.rows += done.rows;
        total.bodies += done.bodies;
        if (done.rows < BATCH && done.bodies < BATCH) break;
        await new Promise((r) => setTimeout(r, PAUSE_MS));
      }
      if (total.rows + total.bodies > 0) this.#logger.info(total, 'request log retention sweep');
    } catch (err) {
      // The next daily sweep tries again; a failed sweep only means rows are kept a bit longer.
      this.#logger.error({ err }, 'request log retention sweep failed');
    }
    return total;
  }
}

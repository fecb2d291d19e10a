// The cache's writes to its store, none of which a call waits for: new entries go out in batches
// (one statement each), and every write is tracked so that a purge or shutdown can wait for the
// ones in flight.
import type { Logger } from 'pino';
import type { CacheEntryStore, NewCacheEntry } from '../store/cache-entries.ts';
import type { MemEntry } from './memory.ts';

/**
 * New entries are written to the store in batches, at most this long after their answer, or as soon
 * as STORE_BATCH_ROWS wait. Memory serves an entry at once; the store only has to have it for a
 * restart or another instance. Each batch is one statement, and on SQLite it runs on this thread:
 * measured with 5 ms answers at c=1, 20 ms batches (3 rows) cost about 110 us of this thread's time
 * per entry, most of it per statement (prepare, transaction), not per row.
 */
const STORE_DELAY_MS = 200;
const STORE_BATCH_ROWS = 200;

interface Batch {
  entries: MemEntry[];
  rows: NewCacheEntry[];
  release(): void;
  written: Promise<void>;
}

export class StoreWrites {
  readonly #store: CacheEntryStore;
  readonly #logger: Logger;
  readonly #stored: (e: MemEntry, storeId: string) => void;
  readonly #inFlight = new Set<Promise<unknown>>();
  #batch: Batch | undefined;

  /** `stored` hears of each entry once its row is written (and its `storeId` set). */
  constructor(store: CacheEntryStore, logger: Logger, stored: (e: MemEntry, storeId: string) => void) {
    this.#store = store;
    this.#logger = logger;
    this.#stored = stored;
  }

  /** Joins the next batch; settles when that batch is written. */
  add(entry: MemEntry, row: NewCacheEntry): Promise<void> {
    let batch = this.#batch;
    if (batch === undefined) {
      const entries: MemEntry[] = [];
      const rows: NewCacheEntry[] = [];
      let release = (): void => {};
      const due = new Promise<void>((resolve) => {
        release = resolve;
      });
      const timer = setTimeout(release, STORE_DELAY_MS);
      timer.unref();
      const written = due.then(async () => {
        clearTimeout(timer);
        if (this.#batch === batch) this.#batch = undefined;
        const ids = await this.#store.putMany(rows);
        for (const e of entries) {
          e.storeId = ids.get(e.key) ?? e.storeId;
          // Written: what waits on `written` from now on need not wait.
          e.written = undefined;
          if (e.storeId !== undefined) this.#stored(e, e.storeId);
        }
      });
      batch = { entries, rows, release, written: this.track(written) };
      this.#batch = batch;
    }
    batch.entries.push(entry);
    batch.rows.push(row);
    if (batch.rows.length >= STORE_BATCH_ROWS) batch.release();
    return batch.written;
  }

  /** Work nobody awaits: failures are logged, and settle() waits for it. */
  track(p: Promise<unknown>): Promise<void> {
    const tracked = p.then(
      () => undefined,
      (err: unknown) => this.#logger.warn({ err }, 'semantic cache: a store write failed'),
    );
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
    return tracked;
  }

  /** Waits for every write in flight, releasing the batch at once instead of on its timer. */
  async settle(): Promise<void> {
    // A deferred entry write can open a new batch while the last one is awaited.
    while (this.#inFlight.size > 0) {
      this.#batch?.release();
      await Promise.allSettled([...this.#inFlight]);
    }
  }
}

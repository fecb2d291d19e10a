// How a live mirror is kept current: change events (this process's writes, and in scale-out mode
// other instances') reload the one entity they name, and a periodic poll (util/refresher.ts) catches
// what no event announced (the CLI, another instance without a shared bus, a missed event).
//
// Both paths read the store and then apply what they read, so they can finish out of order: a slow
// poll that read a row before a write may apply it after the event reload of that write. Freshness
// decides which read wins, per entity:
// - a newer stamp (routing configs: version, then updated_at; others: updated_at) wins;
// - on an equal stamp, the read that started later wins (every read takes a ticket before it starts;
//   an event reload starts after its write committed, so it beats any poll that began earlier);
// - a final state (revoked key, deleted project, credential or config) is never undone: those states
//   are irreversible in the store, so a live row seen after a final one is always a stale read.
import type { Logger } from 'pino';
import type { ChangeBus, ChangeTopic } from '../ports/change-bus.ts';
import { newestOf, type Refresher, startRefresher } from '../util/refresher.ts';

interface Seen {
  stamp: string;
  ticket: number;
  final: boolean;
}

export class Freshness {
  readonly #seen = new Map<string, Seen>();
  #reads = 0;

  /** Taken just before a store read starts; the rows it returns are judged with it. */
  ticket(): number {
    return ++this.#reads;
  }

  /** Whether a row read under `ticket` may replace what is applied for `id`; records it when it may. */
  admit(id: string, stamp: string, final: boolean, ticket: number): boolean {
    const cur = this.#seen.get(id);
    if (cur && !final) {
      if (cur.final) return false;
      if (stamp < cur.stamp || (stamp === cur.stamp && ticket < cur.ticket)) return false;
    }
    this.#seen.set(id, { stamp, ticket, final });
    return true;
  }
}

/** The two reads a feed makes of a store: the entity an event names, and the poll's changed rows. */
export interface FeedStore<R> {
  /** The entity as committed now (undefined when it does not exist). */
  get(orgId: string, id: string): Promise<R | undefined>;
  /** Rows with updated_at >= the instant (deleted and revoked ones included). */
  changedSince(sinceIso: string): Promise<R[]>;
}

export type FeedRow = { id: string; updatedAt: string };

export interface FeedSource<R extends FeedRow> {
  /** Names the refresher in log lines. */
  name: string;
  topic: ChangeTopic;
  store: FeedStore<R>;
  /** Whether the row's state can never be undone (see Freshness). */
  final: (row: R) => boolean;
  /** What orders two reads of one entity; updated_at unless the entity has a better one. */
  stamp?: (row: R) => string;
  /** The rows `start` loads before the first call is served; none when absent. */
  warm?: () => Promise<readonly R[]>;
}

/** `final` for entities whose only final state is deletion. */
export const isDeleted = (row: { deletedAt: string | null }): boolean => row.deletedAt !== null;

/**
 * What every live mirror shares: it subscribes to its topic and polls its store from construction
 * on, and every row either path (or `load`) reads goes through one Freshness before `apply` sees it.
 * When the bus starts hearing other instances (its first subscription, a reconnection) the mirror
 * polls at once: what they published before then never arrives as an event, and waiting for the
 * timer would leave this instance up to an interval behind them.
 * Subclasses hold the maps and say what an admitted row and a vanished entity do to them.
 */
export abstract class LiveMirror<Row extends FeedRow> {
  readonly #freshness = new Freshness();
  readonly #source: FeedSource<Row>;
  readonly #unsubscribe: () => void;
  readonly #unresume: () => void;
  readonly #refresher: Refresher;
  /** Polls started so far: `refresh` waits for one that started after it was called. */
  #polls = 0;

  protected constructor(source: FeedSource<Row>, bus: ChangeBus, logger: Logger, intervalMs: number) {
    this.#source = source;
    this.#unsubscribe = bus.subscribe(source.topic, async (ev) => {
      const ticket = this.#freshness.ticket();
      const row = await source.store.get(ev.orgId, ev.id);
      if (row) this.#offer(row, ticket);
      else this.remove(ev.id);
    });
    this.#refresher = startRefresher(source.name, intervalMs, logger, async (since) => {
      this.#polls++;
      const ticket = this.#freshness.ticket();
      const rows = await source.store.changedSince(since);
      for (const r of rows) this.#offer(r, ticket);
      return newestOf(rows);
    });
    this.#unresume = bus.onResume(() => void this.refresh());
  }

  /** A row Freshness admitted: never older than what was applied before for its entity. */
  protected abstract apply(row: Row): void;

  /** The entity no longer exists at all (an event named it and the store has no row). */
  protected abstract remove(id: string): void;

  #offer(row: Row, ticket: number): void {
    const stamp = this.#source.stamp ? this.#source.stamp(row) : row.updatedAt;
    if (this.#freshness.admit(row.id, stamp, this.#source.final(row), ticket)) this.apply(row);
  }

  /** Reads rows (one entity on first use, say) and applies them under one ticket. */
  protected async load(read: () => Promise<readonly Row[]>): Promise<void> {
    const ticket = this.#freshness.ticket();
    for (const r of await read()) this.#offer(r, ticket);
  }

  /** Loads the source's warm rows; called once before the first call is served. */
  start(): Promise<void> {
    const warm = this.#source.warm;
    return warm ? this.load(warm) : Promise.resolve();
  }

  /** Polls the store now instead of waiting for the timer: resolves once a read that started after this call is applied. */
  async refresh(): Promise<void> {
    const before = this.#polls;
    let poll = this.#refresher.tick();
    // A poll already under way may have read before what the caller wants seen was committed.
    if (this.#polls === before) {
      await poll;
      poll = this.#refresher.tick();
    }
    await poll;
  }

  stop(): void {
    this.#unsubscribe();
    this.#unresume();
    this.#refresher.stop();
  }
}

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
import type { ChangeBus, ChangeEvent, ChangeTopic } from '../ports/change-bus.ts';
import { newestOf, startRefresher } from '../util/refresher.ts';

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

export interface FeedSource<R extends { updatedAt: string }> {
  /** Names the refresher in log lines. */
  name: string;
  topic: ChangeTopic;
  /** The entity an event names, as committed now (undefined when it does not exist). */
  reload(ev: ChangeEvent): Promise<R | undefined>;
  /** Rows with updated_at >= the instant (deleted and revoked ones included). */
  changedSince(sinceIso: string): Promise<R[]>;
  /** Applies a row read under `ticket` (the mirror asks its Freshness whether it may). */
  apply(row: R, ticket: number): void;
  /** The entity of an event no longer exists at all. */
  gone?(ev: ChangeEvent): void;
}

export interface Feed<Row> {
  /** Loads rows (start-up warm) under one ticket. */
  load(read: () => Promise<readonly Row[]>): Promise<void>;
  /** Runs one poll now. */
  refresh(): Promise<void>;
  /** Unsubscribes and stops the poll. */
  stop(): void;
}

export function connectFeed<Row extends { updatedAt: string }>(
  source: FeedSource<Row>,
  freshness: Freshness,
  bus: ChangeBus,
  logger: Logger,
  intervalMs: number,
): Feed<Row> {
  const unsubscribe = bus.subscribe(source.topic, async (ev) => {
    const ticket = freshness.ticket();
    const row = await source.reload(ev);
    if (row) source.apply(row, ticket);
    else source.gone?.(ev);
  });
  const refresher = startRefresher(source.name, intervalMs, logger, async (since) => {
    const ticket = freshness.ticket();
    const rows = await source.changedSince(since);
    for (const r of rows) source.apply(r, ticket);
    return newestOf(rows);
  });
  return {
    async load(read) {
      const ticket = freshness.ticket();
      for (const r of await read()) source.apply(r, ticket);
    },
    refresh: () => refresher.tick(),
    stop() {
      unsubscribe();
      refresher.stop();
    },
  };
}

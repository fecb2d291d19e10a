// How the instances sharing a store keep their cache memories alike: each announces the entries it
// wrote and the projects it purged on the change bus (topic `cache_entry`), and loads what the
// others announce from the store. Without a bus, nothing is sent and nothing is heard. What was
// announced while this instance could not hear (a lost connection) is repaired by re-reading the store.
import type { ChangeBus, ChangeEvent } from '../ports/change-bus.ts';

/** `id` of a `cache_entry` event that purged a project (an entry's own event carries its store id). */
const PURGE_PREFIX = 'purge:';

export interface ReplicaSide {
  /** Another instance purged the project. */
  purged(projectId: string): void;
  /**
   * Another instance wrote the entry with this store id. `purgedSince(project)` tells whether a purge
   * of the project was heard or made after the event arrived: a row read before that purge must not
   * be loaded after it, or it would stay in memory for ever.
   */
  written(storeId: string, purgedSince: (projectId: string) => boolean): Promise<void>;
  /** The bus hears the others again after a gap: what they announced meanwhile never arrives. */
  resumed(): void;
}

export class CacheReplication {
  readonly #bus: ChangeBus | undefined;
  /** Store ids this instance wrote and announced: its own events are not read back. */
  readonly #announced = new Set<string>();
  #unsubscribe: (() => void) | undefined;
  #unresume: (() => void) | undefined;
  /** Purges so far, and the count at each project's last one. */
  #purges = 0;
  readonly #purgedAt = new Map<string, number>();

  constructor(bus: ChangeBus | undefined) {
    this.#bus = bus;
  }

  start(side: ReplicaSide): void {
    this.#unsubscribe = this.#bus?.subscribe('cache_entry', (ev) => this.#heard(ev, side));
    this.#unresume = this.#bus?.onResume(() => side.resumed());
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unresume?.();
    this.#unsubscribe = undefined;
    this.#unresume = undefined;
  }

  async #heard(ev: ChangeEvent, side: ReplicaSide): Promise<void> {
    if (ev.id.startsWith(PURGE_PREFIX)) {
      const projectId = ev.id.slice(PURGE_PREFIX.length);
      this.notePurge(projectId);
      return side.purged(projectId);
    }
    if (this.#announced.delete(ev.id)) return;
    await side.written(ev.id, this.purgedSince());
  }

  /** Taken before a store read: tells whether a purge of a project was heard or made since then. */
  purgedSince(): (projectId: string) => boolean {
    const since = this.#purges;
    return (projectId) => (this.#purgedAt.get(projectId) ?? 0) > since;
  }

  /** A purge of the project starts here (this instance's own, before its memory is emptied). */
  notePurge(projectId: string): void {
    this.#purges++;
    this.#purgedAt.set(projectId, this.#purges);
  }

  entryWritten(projectId: string, storeId: string): void {
    if (this.#bus === undefined) return;
    this.#announced.add(storeId);
    this.#publish(projectId, storeId);
  }

  projectPurged(projectId: string): void {
    this.#publish(projectId, `${PURGE_PREFIX}${projectId}`);
  }

  #publish(projectId: string, id: string): void {
    // Entries belong to projects: the event names the project where others name the org.
    void this.#bus?.publish({ topic: 'cache_entry', id, orgId: projectId });
  }
}

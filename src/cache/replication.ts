// How the instances sharing a store keep their cache memories alike: each announces the entries it
// wrote and the projects it purged on the change bus (topic `cache_entry`), and loads what the
// others announce from the store. Without a bus, nothing is sent and nothing is heard.
import type { ChangeBus, ChangeEvent } from '../ports/change-bus.ts';

/** `id` of a `cache_entry` event that purged a project (an entry's own event carries its store id). */
const PURGE_PREFIX = 'purge:';

export interface ReplicaSide {
  /** Another instance purged the project. */
  purged(projectId: string): void;
  /** Another instance wrote the entry with this store id. */
  written(storeId: string): Promise<void>;
}

export class CacheReplication {
  readonly #bus: ChangeBus | undefined;
  /** Store ids this instance wrote and announced: its own events are not read back. */
  readonly #announced = new Set<string>();
  #unsubscribe: (() => void) | undefined;

  constructor(bus: ChangeBus | undefined) {
    this.#bus = bus;
  }

  start(side: ReplicaSide): void {
    this.#unsubscribe = this.#bus?.subscribe('cache_entry', (ev) => this.#heard(ev, side));
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  async #heard(ev: ChangeEvent, side: ReplicaSide): Promise<void> {
    if (ev.id.startsWith(PURGE_PREFIX)) return side.purged(ev.id.slice(PURGE_PREFIX.length));
    if (this.#announced.delete(ev.id)) return;
    await side.written(ev.id);
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

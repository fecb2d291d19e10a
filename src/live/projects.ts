// Projects in memory so the proxy can read per-project settings (log retention, later the cache)
// without a database round trip. Soft-deleted projects stay, marked `deleted`. Kept current by
// `project` change events and the periodic poll.
import type { Logger } from 'pino';
import type { ChangeBus } from '../ports/change-bus.ts';
import { type ProjectRecord, type ProjectSettings, type ProjectStore, withDefaultSettings } from '../store/projects.ts';
import { connectFeed, type Feed, Freshness } from './feed.ts';

export interface CachedProject {
  id: string;
  orgId: string;
  slug: string;
  name: string;
  settings: ProjectSettings;
  deleted: boolean;
}

/** What the mirror reads from the project store. */
export type ProjectSource = Pick<ProjectStore, 'get' | 'changedSince'>;

export class ProjectMirror {
  readonly #store: ProjectSource;
  readonly #byId = new Map<string, CachedProject>();
  readonly #freshness = new Freshness();
  readonly #feed: Feed<ProjectRecord>;

  constructor(store: ProjectSource, bus: ChangeBus, logger: Logger, intervalMs: number) {
    this.#store = store;
    this.#feed = connectFeed(
      {
        name: 'projects',
        topic: 'project',
        reload: (ev) => store.get(ev.orgId, ev.id),
        changedSince: (since) => store.changedSince(since),
        apply: (row, ticket) => this.#apply(row, ticket),
        gone: (ev) => this.#byId.delete(ev.id),
      },
      this.#freshness,
      bus,
      logger,
      intervalMs,
    );
  }

  /** Loads every project, deleted ones included; called once before the first call is served. */
  start(): Promise<void> {
    // Every row's updated_at is after the empty string.
    return this.#feed.load(() => this.#store.changedSince(''));
  }

  #apply(row: ProjectRecord, ticket: number): void {
    if (!this.#freshness.admit(row.id, row.updatedAt, row.deletedAt !== null, ticket)) return;
    this.#byId.set(row.id, {
      id: row.id,
      orgId: row.orgId,
      slug: row.slug,
      name: row.name,
      settings: withDefaultSettings(row.settings),
      deleted: row.deletedAt !== null,
    });
  }

  cached(projectId: string): CachedProject | undefined {
    return this.#byId.get(projectId);
  }

  /** Polls the store now instead of waiting for the timer. */
  refresh(): Promise<void> {
    return this.#feed.refresh();
  }

  stop(): void {
    this.#feed.stop();
  }
}

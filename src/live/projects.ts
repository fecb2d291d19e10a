// Projects in memory so the proxy can read per-project settings (log retention, later the cache)
// without a database round trip. Soft-deleted projects stay, marked `deleted`. Kept current by
// `project` change events and the periodic poll.
import type { Logger } from 'pino';
import type { ChangeBus } from '../ports/change-bus.ts';
import { type ProjectRecord, type ProjectSettings, type ProjectStore, withDefaultSettings } from '../store/projects.ts';
import { isDeleted, LiveMirror } from './feed.ts';

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

export class ProjectMirror extends LiveMirror<ProjectRecord> {
  readonly #byId = new Map<string, CachedProject>();

  constructor(store: ProjectSource, bus: ChangeBus, logger: Logger, intervalMs: number) {
    // Deleted projects are loaded too; every row's updated_at is after the empty string.
    const warm = () => store.changedSince('');
    super({ name: 'projects', topic: 'project', store, final: isDeleted, warm }, bus, logger, intervalMs);
  }

  protected override apply(row: ProjectRecord): void {
    this.#byId.set(row.id, {
      id: row.id,
      orgId: row.orgId,
      slug: row.slug,
      name: row.name,
      settings: withDefaultSettings(row.settings),
      deleted: row.deletedAt !== null,
    });
  }

  protected override remove(id: string): void {
    this.#byId.delete(id);
  }

  cached(projectId: string): CachedProject | undefined {
    return this.#byId.get(projectId);
  }
}

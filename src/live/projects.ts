// Projects in memory so the proxy can read per-project settings (log retention, later the cache)
// without a database round trip.
import type { Logger } from 'pino';
import type { ProjectRecord, ProjectStore } from '../store/projects.ts';
import { newestOf, type Refresher, startRefresher } from '../util/refresher.ts';

export interface ProjectSettings {
  /** Keep request and response bodies in the request log. */
  log_bodies: boolean;
  [key: string]: unknown;
}

export interface CachedProject {
  id: string;
  orgId: string;
  slug: string;
  name: string;
  settings: ProjectSettings;
  deleted: boolean;
}

export const DEFAULT_PROJECT_SETTINGS: ProjectSettings = { log_bodies: true };

export function withDefaultSettings(settings: Record<string, unknown>): ProjectSettings {
  return { ...DEFAULT_PROJECT_SETTINGS, ...settings } as ProjectSettings;
}

export class ProjectCache {
  readonly #byId = new Map<string, CachedProject>();
  readonly #refresher: Refresher;

  constructor(store: ProjectStore, logger: Logger, intervalMs: number) {
    this.#refresher = startRefresher('projects', intervalMs, logger, async (since) => {
      const rows = await store.changedSince(since);
      for (const r of rows) this.apply(r);
      return newestOf(rows);
    });
  }

  warm(rows: ProjectRecord[]): void {
    for (const r of rows) this.apply(r);
  }

  apply(row: ProjectRecord): void {
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

  refresh(): Promise<void> {
    return this.#refresher.tick();
  }

  stop(): void {
    this.#refresher.stop();
  }
}

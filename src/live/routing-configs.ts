// Live routing configs in memory, keyed by (org, slug): the proxy never reads the database on a call.
// In-process writes apply the new record at once; a periodic poll picks up writes of other processes
// (CLI, other instances) within one refresh interval.
import type { Logger } from 'pino';
import type { RoutingConfigRecord, RoutingConfigStore } from '../store/routing-configs.ts';
import { newestOf, type Refresher, startRefresher } from '../util/refresher.ts';
import { compileStrategy, strategyName } from '../routing/normalize.ts';
import type { CompiledStrategy, StrategyName } from '../routing/types.ts';

export interface ActiveConfig {
  id: string;
  orgId: string;
  projectId: string | null;
  slug: string;
  version: number;
  strategy: StrategyName;
  embeddingDimensions: number | null;
  compiled: CompiledStrategy;
}

export class RoutingConfigCache {
  readonly #bySlug = new Map<string, ActiveConfig>();
  readonly #slugById = new Map<string, string>();
  readonly #refresher: Refresher;
  readonly #logger: Logger;

  constructor(store: RoutingConfigStore, logger: Logger, intervalMs: number) {
    this.#logger = logger;
    this.#refresher = startRefresher('routing-configs', intervalMs, logger, async (since) => {
      const rows = await store.changedSince(since);
      for (const r of rows) this.apply(r);
      return newestOf(rows);
    });
  }

  warm(rows: RoutingConfigRecord[]): void {
    for (const r of rows) this.apply(r);
  }

  /** Replaces the entry for the record's config (removes it when the config is deleted). */
  apply(r: RoutingConfigRecord): void {
    const key = `${r.orgId}\u0000${r.slug}`;
    const prevKey = this.#slugById.get(r.id);
    const cur = this.#bySlug.get(key);
    // A poll may bring an older row after a newer in-process write; never go back in versions.
    if (cur && cur.id === r.id && cur.version > r.version && r.deletedAt === null) return;
    if (r.deletedAt !== null) {
      if (prevKey && this.#bySlug.get(prevKey)?.id === r.id) this.#bySlug.delete(prevKey);
      this.#slugById.delete(r.id);
      return;
    }
    try {
      const strategy = strategyName(r.strategy);
      this.#bySlug.set(key, {
        id: r.id,
        orgId: r.orgId,
        projectId: r.projectId,
        slug: r.slug,
        version: r.version,
        strategy,
        embeddingDimensions: r.embeddingDimensions,
        compiled: compileStrategy(strategy, r.config),
      });
      this.#slugById.set(r.id, key);
    } catch (err) {
      this.#logger.warn(
        { err, config: r.id },
        'stored routing config no longer compiles; keeping the previous version',
      );
    }
  }

  get(orgId: string, slug: string): ActiveConfig | undefined {
    return this.#bySlug.get(`${orgId}\u0000${slug}`);
  }

  refresh(): Promise<void> {
    return this.#refresher.tick();
  }

  stop(): void {
    this.#refresher.stop();
  }
}

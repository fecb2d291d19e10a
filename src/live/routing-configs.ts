// Live routing configs in memory, keyed by (org, slug): the proxy never reads the database on a call.
// Kept current by `routing_config` change events and the periodic poll. The mirror does not know how
// a config is compiled: the composition root injects the compile function (routing's), and the
// compiled form is a type parameter, so live/ stays below routing/.
import type { Logger } from 'pino';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { RoutingConfigRecord, RoutingConfigStore } from '../store/routing-configs.ts';
import { isDeleted, LiveMirror } from './feed.ts';

/** The current version of a live config, compiled once (routing/types.ts `ActiveConfig` is this shape). */
export interface LiveConfig<C, S extends string = string> {
  id: string;
  orgId: string;
  projectId: string | null;
  slug: string;
  version: number;
  strategy: S;
  embeddingDimensions: number | null;
  compiled: C;
}

/** Validates the strategy name and compiles the config; throws when the stored config no longer compiles. */
export type ConfigCompiler<C, S extends string = string> = (
  strategy: string,
  config: Record<string, unknown>,
) => { strategy: S; compiled: C };

/** What the mirror reads from the routing config store. */
export type RoutingConfigSource = Pick<RoutingConfigStore, 'get' | 'changedSince' | 'listAllLive'>;

/** Versions grow by one per change; deletion keeps the version and moves updated_at. */
function stampOf(r: RoutingConfigRecord): string {
  return `${String(r.version).padStart(12, '0')} ${r.updatedAt}`;
}

export class RoutingConfigMirror<C, S extends string = string> extends LiveMirror<RoutingConfigRecord> {
  readonly #compile: ConfigCompiler<C, S>;
  readonly #logger: Logger;
  readonly #bySlug = new Map<string, LiveConfig<C, S>>();
  readonly #keyById = new Map<string, string>();

  constructor(
    store: RoutingConfigSource,
    bus: ChangeBus,
    compile: ConfigCompiler<C, S>,
    logger: Logger,
    intervalMs: number,
  ) {
    const warm = () => store.listAllLive();
    // An older version (a slow poll) never replaces a newer one, and a deleted config never comes back.
    const freshness = { final: isDeleted, stamp: stampOf };
    super({ name: 'routing-configs', topic: 'routing_config', store, warm, ...freshness }, bus, logger, intervalMs);
    this.#compile = compile;
    this.#logger = logger;
  }

  protected override apply(r: RoutingConfigRecord): void {
    if (r.deletedAt !== null) {
      this.remove(r.id);
      return;
    }
    try {
      const { strategy, compiled } = this.#compile(r.strategy, r.config);
      const key = `${r.orgId}\u0000${r.slug}`;
      const prevKey = this.#keyById.get(r.id);
      if (prevKey !== undefined && prevKey !== key && this.#bySlug.get(prevKey)?.id === r.id) {
        this.#bySlug.delete(prevKey);
      }
      this.#bySlug.set(key, {
        id: r.id,
        orgId: r.orgId,
        projectId: r.projectId,
        slug: r.slug,
        version: r.version,
        strategy,
        embeddingDimensions: r.embeddingDimensions,
        compiled,
      });
      this.#keyById.set(r.id, key);
    } catch (err) {
      this.#logger.warn(
        { err, config: r.id },
        'stored routing config no longer compiles; keeping the previous version',
      );
    }
  }

  protected override remove(id: string): void {
    const key = this.#keyById.get(id);
    if (key !== undefined && this.#bySlug.get(key)?.id === id) this.#bySlug.delete(key);
    this.#keyById.delete(id);
  }

  get(orgId: string, slug: string): LiveConfig<C, S> | undefined {
    return this.#bySlug.get(`${orgId}\u0000${slug}`);
  }
}

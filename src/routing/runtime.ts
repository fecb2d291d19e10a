// The routing state of one gateway instance: live configs (cache) and candidate health.
import type { Logger } from 'pino';
import type { RoutingConfigStore } from '../store/routing-configs.ts';
import { RoutingConfigCache } from '../live/routing-configs.ts';
import { HealthTracker } from './health.ts';

export class RoutingRuntime {
  readonly configs: RoutingConfigCache;
  readonly health = new HealthTracker();

  private constructor(
    readonly store: RoutingConfigStore,
    logger: Logger,
    intervalMs: number,
  ) {
    this.configs = new RoutingConfigCache(store, logger, intervalMs);
  }

  /** Loads every live config before the first call is served. */
  static async start(store: RoutingConfigStore, logger: Logger, intervalMs: number): Promise<RoutingRuntime> {
    const rt = new RoutingRuntime(store, logger, intervalMs);
    rt.configs.warm(await store.listAllLive());
    return rt;
  }

  stop(): void {
    this.configs.stop();
  }
}

// What the proxy needs for `@slug` calls: live configs, credentials by id or vendor, health.
import type { ActiveConfig } from '../live/routing-configs.ts';
import type { RoutingDeps } from './executor.ts';

export interface ProxyRouting extends RoutingDeps {
  config(orgId: string, slug: string): ActiveConfig | undefined;
}

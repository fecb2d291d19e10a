// What the proxy needs for `@slug` calls: live configs, credentials by id or vendor, health.
import type { ActiveConfig } from './config-cache.ts';
import type { RoutingDeps } from './route-chat.ts';

export interface ProxyRouting extends RoutingDeps {
  config(orgId: string, slug: string): ActiveConfig | undefined;
}

// Wire shapes of routing configs and their versions (management API), their TypeBox schemas, and the
// look-up every routing-config operation starts with.
import { Type } from '@sinclair/typebox';
import type { Principal } from '../live/principals.ts';
import type { RoutingConfigRecord, RoutingConfigVersionRecord } from '../store/routing-configs.ts';
import { liveOr404, requireProjectReach } from './access.ts';
import { ManagedBy } from './config-managed.ts';
import { Nullable, Timestamp } from './schemas.ts';
import type { Services } from './services.ts';

export const ConfigIdParams = Type.Object({ config_id: Type.String({ minLength: 1, maxLength: 100 }) });

export async function liveConfig(svc: Services, orgId: string, id: string): Promise<RoutingConfigRecord> {
  const c = liveOr404(await svc.stores.routingConfigs.get(orgId, id), 'routing config', id);
  return c;
}

/** A live config the caller may manage: a project-bound caller reaches its own project's configs only. */
export async function reachableConfig(svc: Services, principal: Principal, id: string): Promise<RoutingConfigRecord> {
  const c = await liveConfig(svc, principal.orgId, id);
  requireProjectReach(principal, c.projectId, 'routing configs');
  return c;
}

const ConfigObject = Type.Object(
  {},
  { additionalProperties: true, description: 'Strategy settings (see README "Routing configs")' },
);

export const RoutingConfig = Type.Object({
  id: Type.String(),
  object: Type.Literal('routing_config'),
  managed_by: ManagedBy,
  project_id: Nullable(Type.String()),
  name: Type.String(),
  slug: Type.String(),
  model: Type.String({ description: 'The value to send as `model`: "@<slug>"' }),
  strategy: Type.String(),
  config: ConfigObject,
  embedding_dimensions: Nullable(Type.Integer()),
  version: Type.Integer(),
  version_id: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Nullable(Timestamp),
});

export const RoutingConfigVersion = Type.Object({
  id: Type.String(),
  object: Type.Literal('routing_config_version'),
  config_id: Type.String(),
  version: Type.Integer(),
  current: Type.Boolean(),
  name: Type.String(),
  strategy: Type.String(),
  config: ConfigObject,
  embedding_dimensions: Nullable(Type.Integer()),
  restored_from: Nullable(Type.Integer()),
  created_at: Timestamp,
});

/** Create accepts both body forms, so every alias is declared (validation of values is in normalize.ts). */
export const RoutingConfigBody = {
  project_id: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  projectId: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  slug: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  strategy: Type.Optional(
    Type.String({
      description: 'single, fallback, cost_optimized, latency_optimized, ensemble, ab_test, cascade, custom_rules',
    }),
  ),
  policy: Type.Optional(Type.String({ description: 'Alias of strategy; fallback_chain means fallback' })),
  config: Type.Optional(ConfigObject),
  embedding_dimensions: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  embeddingDimensions: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
};

export function configView(r: RoutingConfigRecord) {
  return {
    id: r.id,
    object: 'routing_config' as const,
    managed_by: null,
    project_id: r.projectId,
    name: r.name,
    slug: r.slug,
    model: `@${r.slug}`,
    strategy: r.strategy,
    config: r.config,
    embedding_dimensions: r.embeddingDimensions,
    version: r.version,
    version_id: r.versionId,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    deleted_at: r.deletedAt,
  };
}

export function versionView(v: RoutingConfigVersionRecord, currentVersion: number) {
  return {
    id: v.id,
    object: 'routing_config_version' as const,
    config_id: v.configId,
    version: v.version,
    current: v.version === currentVersion,
    name: v.name,
    strategy: v.strategy,
    config: v.config,
    embedding_dimensions: v.embeddingDimensions,
    restored_from: v.restoredFrom,
    created_at: v.createdAt,
  };
}

// Routing configs: list / get / create / update (new version) / soft-delete, versions, restore
// (SPEC "Management API: routing configs"). The test operation lives in routing-config-test.ts.
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import { type NormalizedConfig, normalizeCreate, normalizePatch } from '../routing/normalize.ts';
import { ConfigError } from '../routing/types.ts';
import { isUniqueViolation } from '../store/index.ts';
import { notFound, requireProjectReach } from './access.ts';
import { pageAfter } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { routingConfigTestOperations } from './routing-config-test.ts';
import {
  ConfigIdParams,
  configView,
  RoutingConfig,
  RoutingConfigBody,
  RoutingConfigVersion,
  reachableConfig,
  versionView,
} from './routing-config-views.ts';
import { PageQuery, pageOf } from './schemas.ts';
import type { Services } from './services.ts';

const TAG = 'routing-configs';
const VersionParams = Type.Object({
  config_id: Type.String({ minLength: 1, maxLength: 100 }),
  version_id: Type.String({ minLength: 1, maxLength: 100, description: 'Version id (rcv_...) or version number' }),
});

/** A version of a config the caller may reach, with the config's current state; 404 when either is unknown. */
async function reachableVersion(
  svc: Services,
  principal: Principal,
  params: { config_id: string; version_id: string },
) {
  const cur = await reachableConfig(svc, principal, params.config_id);
  const version = await svc.stores.routingConfigs.getVersion(principal.orgId, cur.id, params.version_id);
  if (!version) throw notFound('routing config version', params.version_id);
  return { cur, version };
}

export function asBadRequest(err: unknown): never {
  if (err instanceof ConfigError) {
    throw new GatewayError('invalid_routing_config', { message: err.message, param: err.field });
  }
  throw err;
}

function normalized<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    asBadRequest(err);
  }
}

/** Project and credential references must belong to the caller's organization. */
function checkReferences(svc: Services, orgId: string, n: NormalizedConfig, isNew = false): void {
  // Only a new config must name a live project; later versions keep the project they were created in.
  if (isNew && n.projectId !== null) {
    const p = svc.projects.cached(n.projectId);
    if (!p || p.orgId !== orgId || p.deleted) {
      throw new GatewayError('invalid_routing_config', {
        message: `project_id: no project with id '${n.projectId}'`,
        param: 'project_id',
      });
    }
  }
  for (const ref of n.compiled.refs) {
    if (!ref.credentialId) continue;
    const cred = svc.credentials.get(orgId, ref.credentialId);
    if (!cred) {
      throw new GatewayError('invalid_routing_config', {
        message: `config: no provider credential with id '${ref.credentialId}'`,
        param: 'provider_credential_id',
      });
    }
    if (cred.vendor !== ref.vendor) {
      throw new GatewayError('invalid_routing_config', {
        message: `config: credential '${ref.credentialId}' is for ${cred.vendor}, not ${ref.vendor}`,
        param: 'provider_credential_id',
      });
    }
  }
}

const listConfigs = defineOperation({
  name: 'list_routing_configs',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/routing-configs',
  tag: TAG,
  summary: 'List live routing configs (current versions), optionally of one project',
  input: {
    query: Type.Object(
      { project_id: Type.Optional(Type.String({ maxLength: 100 })), ...PageQuery },
      { additionalProperties: false },
    ),
  },
  output: pageOf(RoutingConfig),
  async handler({ svc, principal, query }) {
    const own = principal.projectId;
    if (query.project_id !== undefined) requireProjectReach(principal, query.project_id, 'routing configs');
    return pageAfter(
      query,
      (page) => svc.stores.routingConfigs.list(principal.orgId, { ...page, projectId: own ?? query.project_id }),
      configView,
    );
  },
});

const getConfig = defineOperation({
  name: 'get_routing_config',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/routing-configs/{config_id}',
  tag: TAG,
  summary: 'Get a routing config (its current version)',
  input: { params: ConfigIdParams },
  output: RoutingConfig,
  async handler({ svc, principal, params }) {
    return configView(await reachableConfig(svc, principal, params.config_id));
  },
});

const createConfig = defineOperation({
  name: 'create_routing_config',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/routing-configs',
  tag: TAG,
  summary: 'Create a routing config (version 1); call it with model "@<slug>"',
  status: 201,
  errors: [400, 409],
  input: { body: Type.Object(RoutingConfigBody, { additionalProperties: false }) },
  output: RoutingConfig,
  async handler({ svc, principal, body }) {
    // A project-bound caller's config belongs to its project unless the body names one.
    const own = principal.projectId;
    const named = body.project_id !== undefined || body.projectId !== undefined;
    const n = normalized(() => normalizeCreate(own !== null && !named ? { ...body, project_id: own } : body));
    const orgId = requireProjectReach(principal, n.projectId, 'routing configs');
    checkReferences(svc, orgId, n, true);
    try {
      const r = await svc.stores.routingConfigs.create({
        orgId,
        projectId: n.projectId,
        slug: n.slug,
        name: n.name,
        strategy: n.strategy,
        config: n.config,
        embeddingDimensions: n.embeddingDimensions,
      });
      return configView(r);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      throw new GatewayError('slug_taken', {
        message: `slug '${n.slug}' is already used by a live routing config`,
        param: 'slug',
      });
    }
  },
});

const updateConfig = defineOperation({
  name: 'update_routing_config',
  method: 'PATCH',
  role: 'developer',
  path: '/manage/v1/routing-configs/{config_id}',
  tag: TAG,
  summary: 'Update a routing config: writes a new version that becomes current',
  errors: [400, 404],
  input: { params: ConfigIdParams, body: Type.Object(RoutingConfigBody, { additionalProperties: false }) },
  output: RoutingConfig,
  async handler({ svc, principal, params, body }) {
    const orgId = principal.orgId;
    const cur = await reachableConfig(svc, principal, params.config_id);
    const n = normalized(() => normalizePatch(cur, body));
    checkReferences(svc, orgId, n);
    const r = await svc.stores.routingConfigs.addVersion(orgId, cur.id, n);
    if (!r) throw notFound('routing config', params.config_id);
    return configView(r);
  },
});

const deleteConfig = defineOperation({
  name: 'delete_routing_config',
  method: 'DELETE',
  role: 'developer',
  path: '/manage/v1/routing-configs/{config_id}',
  tag: TAG,
  summary: 'Soft-delete a routing config; its slug is free again at once',
  input: { params: ConfigIdParams },
  output: RoutingConfig,
  async handler({ svc, principal, params }) {
    const orgId = principal.orgId;
    await reachableConfig(svc, principal, params.config_id);
    const r = await svc.stores.routingConfigs.softDelete(orgId, params.config_id);
    if (!r) throw notFound('routing config', params.config_id);
    return configView(r);
  },
});

const listVersions = defineOperation({
  name: 'list_routing_config_versions',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/routing-configs/{config_id}/versions',
  tag: TAG,
  summary: 'List every version of a routing config, oldest first',
  input: { params: ConfigIdParams },
  output: Type.Object({ data: Type.Array(RoutingConfigVersion) }),
  async handler({ svc, principal, params }) {
    const orgId = principal.orgId;
    const cur = await reachableConfig(svc, principal, params.config_id);
    const versions = (await svc.stores.routingConfigs.listVersions(orgId, cur.id)) ?? [];
    return { data: versions.map((v) => versionView(v, cur.version)) };
  },
});

const getVersion = defineOperation({
  name: 'get_routing_config_version',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/routing-configs/{config_id}/versions/{version_id}',
  tag: TAG,
  summary: 'Get one version of a routing config (by version id or number)',
  input: { params: VersionParams },
  output: RoutingConfigVersion,
  async handler({ svc, principal, params }) {
    const { cur, version } = await reachableVersion(svc, principal, params);
    return versionView(version, cur.version);
  },
});

const restoreVersion = defineOperation({
  name: 'restore_routing_config_version',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/routing-configs/{config_id}/versions/{version_id}/restore',
  tag: TAG,
  summary: 'Restore an old version: writes a new version equal to it, which becomes current',
  errors: [400, 404],
  input: { params: VersionParams },
  output: RoutingConfigVersion,
  async handler({ svc, principal, params }) {
    const orgId = principal.orgId;
    const { cur, version: old } = await reachableVersion(svc, principal, params);
    // An old version may name a credential deleted since: check it as if it were new.
    const n = normalized(() =>
      normalizePatch(cur, {
        name: old.name,
        strategy: old.strategy,
        config: old.config,
        embedding_dimensions: old.embeddingDimensions,
      }),
    );
    checkReferences(svc, orgId, n);
    const r = await svc.stores.routingConfigs.addVersion(orgId, cur.id, old, old.version);
    if (!r) throw notFound('routing config', params.config_id);
    const v = await svc.stores.routingConfigs.getVersion(orgId, cur.id, String(r.version));
    return versionView(v!, r.version);
  },
});

/** SPEC order: the nine routing-config tools appear together. */
export const routingConfigOperations: Operation[] = [
  listConfigs,
  getConfig,
  createConfig,
  updateConfig,
  deleteConfig,
  listVersions,
  getVersion,
  restoreVersion,
  ...routingConfigTestOperations,
];

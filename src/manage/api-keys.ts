// Gateway API keys: create (plaintext returned once), list (never the plaintext), update (name, role,
// rate limits, allowed models and MCP tools, expiry, metadata), revoke; rotation and /me live in
// api-key-rotation.ts.
// The store publishes each change; the principal mirror has it before the response is sent, so a
// new limit applies to the key's next call.
import { Type } from '@sinclair/typebox';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { newId } from '../util/ids.ts';
import { notFound } from './access.ts';
import { getMe, rotateApiKey } from './api-key-rotation.ts';
import {
  ApiKey,
  CreatedApiKey,
  controlFields,
  KeyIdParams,
  KeyName,
  keyControlsInput,
  keyView,
  manageableKey,
  RateLimitsSchema,
  RoleSchema,
  rateLimitsInput,
} from './api-key-schemas.ts';
import { pageAfter } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { holderOf, newKeyRole, requireKeyProject, requireMayGrant } from './roles.ts';
import { Nullable, PageQuery, pageOf } from './schemas.ts';

const TAG = 'api-keys';

export { RateLimitsSchema, rateLimitsInput };

const listApiKeys = defineOperation({
  name: 'list_api_keys',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/api-keys',
  tag: TAG,
  summary: 'List API keys of the organization (never the plaintext)',
  input: {
    query: Type.Object(
      {
        ...PageQuery,
        project_id: Type.Optional(Type.String({ maxLength: 100 })),
        include_revoked: Type.Optional(Type.Boolean({ default: false })),
      },
      { additionalProperties: false },
    ),
  },
  output: pageOf(ApiKey),
  async handler({ svc, principal, query }) {
    const holder = holderOf(principal);
    if (query.project_id !== undefined) requireKeyProject(holder, query.project_id);
    return pageAfter(
      query,
      (page) =>
        svc.stores.orgKeys.listKeys(principal.orgId, {
          ...page,
          projectId: principal.projectId ?? query.project_id,
          includeRevoked: query.include_revoked === true,
        }),
      keyView,
    );
  },
});

const createApiKey = defineOperation({
  name: 'create_api_key',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/api-keys',
  tag: TAG,
  summary:
    "Create an API key, org-wide or scoped to one project, with a role (default: admin org-wide, inference for a project; never above the caller's); the plaintext is returned once",
  status: 201,
  input: {
    body: Type.Object(
      {
        name: Type.Optional(KeyName),
        project_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
        role: Type.Optional(RoleSchema),
        rate_limits: Type.Optional(Nullable(RateLimitsSchema)),
        ...controlFields,
      },
      { additionalProperties: false },
    ),
  },
  output: CreatedApiKey,
  async handler({ svc, principal, body }) {
    const orgId = principal.orgId;
    const holder = holderOf(principal);
    // A caller bound to a project makes keys of that project; others choose, org-wide by default.
    const projectId = body.project_id === undefined ? (principal.projectId ?? null) : body.project_id;
    requireKeyProject(holder, projectId);
    const role = body.role ?? newKeyRole(holder, projectId);
    requireMayGrant(holder, role);
    if (projectId !== null) {
      const p = await svc.stores.projects.get(orgId, projectId);
      if (!p || p.deletedAt !== null) {
        throw new GatewayError('invalid_project', {
          message: `No active project with id '${projectId}'`,
          param: 'project_id',
        });
      }
    }
    const plaintext = generateApiKey();
    const record = await svc.stores.orgKeys.createKey({
      id: newId('key'),
      orgId,
      projectId,
      name: body.name ?? (projectId ? 'project key' : 'org key'),
      keyHash: hashApiKey(plaintext),
      prefix: displayPrefix(plaintext),
      role,
      rateLimits: rateLimitsInput(body.rate_limits ?? null),
      ...keyControlsInput(body),
    });
    return { ...keyView(record), key: plaintext };
  },
});

const updateApiKey = defineOperation({
  name: 'update_api_key',
  method: 'PATCH',
  role: 'developer',
  path: '/manage/v1/api-keys/{key_id}',
  tag: TAG,
  summary:
    "Rename an API key or set its role, rate limits, allowed models, allowed MCP tools, expiry or metadata (null removes one); applies to the key's next call",
  input: {
    params: KeyIdParams,
    body: Type.Object(
      {
        name: Type.Optional(KeyName),
        role: Type.Optional(RoleSchema),
        rate_limits: Type.Optional(Nullable(RateLimitsSchema)),
        ...controlFields,
      },
      { additionalProperties: false },
    ),
  },
  output: ApiKey,
  async handler({ svc, principal, params, body }) {
    await manageableKey(svc, principal, params.key_id);
    if (body.role !== undefined) requireMayGrant(holderOf(principal), body.role);
    const record = await svc.stores.orgKeys.updateKey(principal.orgId, params.key_id, {
      name: body.name,
      role: body.role,
      rateLimits: body.rate_limits === undefined ? undefined : rateLimitsInput(body.rate_limits),
      ...keyControlsInput(body),
    });
    if (!record) throw notFound('API key', params.key_id);
    return keyView(record);
  },
});

const revokeApiKey = defineOperation({
  name: 'revoke_api_key',
  method: 'DELETE',
  role: 'developer',
  path: '/manage/v1/api-keys/{key_id}',
  tag: TAG,
  summary: 'Revoke an API key (takes effect immediately)',
  input: { params: KeyIdParams },
  output: ApiKey,
  async handler({ svc, principal, params }) {
    await manageableKey(svc, principal, params.key_id);
    const record = await svc.stores.orgKeys.revokeKey(principal.orgId, params.key_id);
    if (!record) throw notFound('API key', params.key_id);
    return keyView(record);
  },
});

// Later operations are appended; tool lists keep earlier operations in their places.
export const apiKeyOperations: Operation[] = [
  listApiKeys,
  createApiKey,
  revokeApiKey,
  updateApiKey,
  rotateApiKey,
  getMe,
];

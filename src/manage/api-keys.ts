// Gateway API keys: create (plaintext returned once), list (never the plaintext), update (name, rate
// limits, allowed models, expiry, metadata), revoke; rotation and /me live in api-key-rotation.ts.
// The store publishes each change; the principal mirror has it before the response is sent, so a
// new limit applies to the key's next call.
import { Type } from '@sinclair/typebox';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { newId } from '../util/ids.ts';
import { notFound, requireOrgKey } from './access.ts';
import { getMe, rotateApiKey } from './api-key-rotation.ts';
import {
  ApiKey,
  CreatedApiKey,
  controlFields,
  KeyIdParams,
  KeyName,
  keyControlsInput,
  keyView,
  RateLimitsSchema,
  rateLimitsInput,
} from './api-key-schemas.ts';
import { decodeCursor, toPage } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, PageQuery, pageOf } from './schemas.ts';

const TAG = 'api-keys';

export { RateLimitsSchema, rateLimitsInput };

const listApiKeys = defineOperation({
  name: 'list_api_keys',
  method: 'GET',
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
    const orgId = requireOrgKey(principal);
    const limit = query.limit ?? 50;
    const rows = await svc.stores.orgKeys.listKeys(orgId, {
      afterId: decodeCursor(query.cursor),
      limit: limit + 1,
      projectId: query.project_id,
      includeRevoked: query.include_revoked === true,
    });
    return toPage(rows, limit, keyView);
  },
});

const createApiKey = defineOperation({
  name: 'create_api_key',
  method: 'POST',
  path: '/manage/v1/api-keys',
  tag: TAG,
  summary: 'Create an API key, org-wide or scoped to one project; the plaintext is returned once',
  status: 201,
  input: {
    body: Type.Object(
      {
        name: Type.Optional(KeyName),
        project_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
        rate_limits: Type.Optional(Nullable(RateLimitsSchema)),
        ...controlFields,
      },
      { additionalProperties: false },
    ),
  },
  output: CreatedApiKey,
  async handler({ svc, principal, body }) {
    const orgId = requireOrgKey(principal);
    const projectId = body.project_id ?? null;
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
      rateLimits: rateLimitsInput(body.rate_limits ?? null),
      ...keyControlsInput(body),
    });
    return { ...keyView(record), key: plaintext };
  },
});

const updateApiKey = defineOperation({
  name: 'update_api_key',
  method: 'PATCH',
  path: '/manage/v1/api-keys/{key_id}',
  tag: TAG,
  summary:
    "Rename an API key or set its rate limits, allowed models, expiry or metadata (null removes one); applies to the key's next call",
  input: {
    params: KeyIdParams,
    body: Type.Object(
      { name: Type.Optional(KeyName), rate_limits: Type.Optional(Nullable(RateLimitsSchema)), ...controlFields },
      { additionalProperties: false },
    ),
  },
  output: ApiKey,
  async handler({ svc, principal, params, body }) {
    const orgId = requireOrgKey(principal);
    const record = await svc.stores.orgKeys.updateKey(orgId, params.key_id, {
      name: body.name,
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
  path: '/manage/v1/api-keys/{key_id}',
  tag: TAG,
  summary: 'Revoke an API key (takes effect immediately)',
  input: { params: KeyIdParams },
  output: ApiKey,
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    const record = await svc.stores.orgKeys.revokeKey(orgId, params.key_id);
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

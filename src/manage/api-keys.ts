// Gateway API keys: create (plaintext returned once), list (never the plaintext), revoke. The store
// publishes each change; the principal mirror has it before the response is sent.
import { Type } from '@sinclair/typebox';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { ApiKeyRecord } from '../store/org-keys.ts';
import { newId } from '../util/ids.ts';
import { notFound, requireOrgKey } from './access.ts';
import { decodeCursor, toPage } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';

const TAG = 'api-keys';

const ApiKey = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  name: Type.String(),
  project_id: Nullable(Type.String({ description: 'Null for org-wide keys' })),
  prefix: Type.String({ description: 'First characters of the key, for recognising it' }),
  created_at: Timestamp,
  revoked_at: Nullable(Timestamp),
});

const CreatedApiKey = Type.Object({
  ...ApiKey.properties,
  key: Type.String({ description: 'The plaintext key. Returned only in this response.' }),
});

function keyView(k: ApiKeyRecord) {
  return {
    id: k.id,
    object: 'api_key' as const,
    name: k.name,
    project_id: k.projectId,
    prefix: k.prefix,
    created_at: k.createdAt,
    revoked_at: k.revokedAt,
  };
}

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
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        project_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
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
    });
    return { ...keyView(record), key: plaintext };
  },
});

const revokeApiKey = defineOperation({
  name: 'revoke_api_key',
  method: 'DELETE',
  path: '/manage/v1/api-keys/{key_id}',
  tag: TAG,
  summary: 'Revoke an API key (takes effect immediately)',
  input: { params: Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100 }) }) },
  output: ApiKey,
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    const record = await svc.stores.orgKeys.revokeKey(orgId, params.key_id);
    if (!record) throw notFound('API key', params.key_id);
    return keyView(record);
  },
});

export const apiKeyOperations: Operation[] = [listApiKeys, createApiKey, revokeApiKey];

// Gateway API keys: create (plaintext returned once), list (never the plaintext), update (name, rate
// limits), revoke. The store publishes each change; the principal mirror has it before the response
// is sent, so a new limit applies to the key's next call.
import { Type } from '@sinclair/typebox';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { RateLimits } from '../ports/counters.ts';
import type { ApiKeyRecord } from '../store/org-keys.ts';
import { newId } from '../util/ids.ts';
import { notFound, requireOrgKey } from './access.ts';
import { decodeCursor, toPage } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';

const TAG = 'api-keys';

const RateValue = (description: string) => Type.Integer({ minimum: 1, maximum: 10_000_000, description });

/** `{rpm, tpm, concurrency}`, each optional; shared by API keys and project settings. */
export const RateLimitsSchema = Type.Object(
  {
    rpm: Type.Optional(RateValue('Requests per minute')),
    tpm: Type.Optional(RateValue('Tokens per minute (input estimate plus max_tokens, corrected after the call)')),
    concurrency: Type.Optional(RateValue('Requests in flight at once; a stream counts until it ends')),
  },
  { additionalProperties: false },
);

/** Input as stored: `{}` limits nothing, so it is stored as null like an explicit null. */
export function rateLimitsInput(v: RateLimits | null): RateLimits | null {
  return v !== null && Object.keys(v).length > 0 ? v : null;
}

const KeyIdParams = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100 }) });
const KeyName = Type.String({ minLength: 1, maxLength: 200 });

const ApiKey = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  name: Type.String(),
  project_id: Nullable(Type.String({ description: 'Null for org-wide keys' })),
  prefix: Type.String({ description: 'First characters of the key, for recognising it' }),
  rate_limits: Nullable(RateLimitsSchema),
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
    rate_limits: k.rateLimits,
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
        name: Type.Optional(KeyName),
        project_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
        rate_limits: Type.Optional(Nullable(RateLimitsSchema)),
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
    });
    return { ...keyView(record), key: plaintext };
  },
});

const updateApiKey = defineOperation({
  name: 'update_api_key',
  method: 'PATCH',
  path: '/manage/v1/api-keys/{key_id}',
  tag: TAG,
  summary: "Rename an API key or set its rate limits (null removes them); applies to the key's next call",
  input: {
    params: KeyIdParams,
    body: Type.Object(
      { name: Type.Optional(KeyName), rate_limits: Type.Optional(Nullable(RateLimitsSchema)) },
      { additionalProperties: false },
    ),
  },
  output: ApiKey,
  async handler({ svc, principal, params, body }) {
    const orgId = requireOrgKey(principal);
    const record = await svc.stores.orgKeys.updateKey(orgId, params.key_id, {
      name: body.name,
      rateLimits: body.rate_limits === undefined ? undefined : rateLimitsInput(body.rate_limits),
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

// update_api_key came after the first three; tool lists keep earlier operations in their places.
export const apiKeyOperations: Operation[] = [listApiKeys, createApiKey, revokeApiKey, updateApiKey];

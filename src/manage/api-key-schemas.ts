// The API key resource's schemas, view and access check, shared by the key operations and rotation.
// Kept apart from the operations so rotation can live in its own file without an import cycle.
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import type { RateLimits } from '../ports/counters.ts';
import { ROLES } from '../ports/roles.ts';
import type { ApiKeyPatch, ApiKeyRecord } from '../store/org-keys.ts';
import { notFound } from './access.ts';
import { ManagedBy } from './config-managed.ts';
import { holderOf, requireMayManageKey } from './roles.ts';
import { Nullable, Timestamp } from './schemas.ts';
import type { Services } from './services.ts';

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

export const KeyIdParams = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100 }) });
export const KeyName = Type.String({ minLength: 1, maxLength: 200 });

export const RoleSchema = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  {
    description:
      "admin: everything; developer: model calls, routing configs, budgets, webhooks and keys (of its project when bound to one), reads; viewer: read-only management, no model calls; inference: model calls only (a project key also reads its project's logs and analytics)",
  },
);

const AllowedModels = Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
  minItems: 1,
  maxItems: 50,
  description:
    'Model glob patterns (`gpt-4o*`, `openai/*`) and `@slug` patterns the key may call, matched like budget `models`; null for every model',
});
/** Also the body of the older `POST /manage/v1/api-keys/{key_id}/allowed-tools`, kept as an alias. */
export const AllowedTools = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  minItems: 1,
  maxItems: 50,
  description:
    'Glob patterns over `<server>__<tool>` (`memory__*`) naming the MCP tools the key may see and call through /mcp/v1; null for every tool',
});
const Metadata = Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.String({ maxLength: 512 }), {
  maxProperties: 16,
  description: 'Free-form string pairs (at most 16), shown with the key and in its log rows',
});
const ExpiresAt = Type.String({
  maxLength: 40,
  description: 'ISO-8601 timestamp after which the key answers 401 api_key_expired; null for never',
});

/** The key controls accepted by create and update. */
export const controlFields = {
  allowed_models: Type.Optional(Nullable(AllowedModels)),
  allowed_tools: Type.Optional(Nullable(AllowedTools)),
  expires_at: Type.Optional(Nullable(ExpiresAt)),
  metadata: Type.Optional(Nullable(Metadata)),
};

export const ApiKey = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  managed_by: ManagedBy,
  name: Type.String(),
  project_id: Nullable(Type.String({ description: 'Null for org-wide keys' })),
  prefix: Type.String({ description: 'First characters of the key, for recognising it' }),
  role: RoleSchema,
  rate_limits: Nullable(RateLimitsSchema),
  allowed_models: Nullable(AllowedModels),
  allowed_tools: Nullable(AllowedTools),
  expires_at: Nullable(Timestamp),
  metadata: Nullable(Metadata),
  last_used_at: Nullable(
    Type.String({ description: 'ISO-8601; recorded at most once a minute per key, so up to a minute behind' }),
  ),
  previous_key_expires_at: Nullable(
    Type.String({ description: 'After a rotation: until when the replaced plaintext still works' }),
  ),
  created_at: Timestamp,
  revoked_at: Nullable(Timestamp),
});

export const CreatedApiKey = Type.Object({
  ...ApiKey.properties,
  key: Type.String({ description: 'The plaintext key. Returned only in this response.' }),
});

export function keyView(k: ApiKeyRecord) {
  return {
    id: k.id,
    object: 'api_key' as const,
    managed_by: null,
    name: k.name,
    project_id: k.projectId,
    prefix: k.prefix,
    role: k.role,
    rate_limits: k.rateLimits,
    allowed_models: k.allowedModels,
    allowed_tools: k.allowedTools,
    expires_at: k.expiresAt,
    metadata: k.metadata,
    last_used_at: k.lastUsedAt,
    previous_key_expires_at: k.previousKeyExpiresAt,
    created_at: k.createdAt,
    revoked_at: k.revokedAt,
  };
}

interface ControlsBody {
  allowed_models?: string[] | null;
  allowed_tools?: string[] | null;
  expires_at?: string | null;
  metadata?: Record<string, string> | null;
}

/** The controls a create or update body sets, as the store takes them (undefined = unchanged). */
export function keyControlsInput(
  body: ControlsBody,
): Pick<ApiKeyPatch, 'allowedModels' | 'allowedTools' | 'expiresAt' | 'metadata'> {
  return {
    allowedModels: body.allowed_models,
    allowedTools: body.allowed_tools,
    expiresAt: body.expires_at === undefined || body.expires_at === null ? body.expires_at : isoOf(body.expires_at),
    metadata: body.metadata,
  };
}

/** Stored normalised, so the mirror and every reader parse the same form. */
function isoOf(text: string): string {
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new GatewayError('invalid_parameter', {
      message: `expires_at: '${text.slice(0, 40)}' is not an ISO-8601 timestamp`,
      param: 'expires_at',
    });
  return new Date(ms).toISOString();
}

/**
 * The key an update, revoke or rotation acts on, once the caller is shown to be allowed to: a
 * developer may not touch an admin key, nor a caller bound to a project another project's key.
 */
export async function manageableKey(svc: Services, principal: Principal, keyId: string): Promise<ApiKeyRecord> {
  const key = await svc.stores.orgKeys.getKey(principal.orgId, keyId);
  if (!key || key.revokedAt !== null) throw notFound('API key', keyId);
  requireMayManageKey(holderOf(principal), key);
  return key;
}

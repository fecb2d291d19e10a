// Key rotation and `GET /manage/v1/me`. Rotation swaps the stored hash and keeps the old one for a
// grace period; the change event carries it to every instance's principal mirror, and the end of
// the grace is part of the row, so no second event is needed when it passes.
import { Type } from '@sinclair/typebox';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import type { Principal } from '../live/principals.ts';
import { notFound, requireOrgKey } from './access.ts';
import { CreatedApiKey, KeyIdParams, keyView } from './api-key-schemas.ts';
import { defineOperation } from './operation.ts';
import { Nullable, Timestamp } from './schemas.ts';

const MAX_GRACE_SECONDS = 7 * 24 * 3600;

export const rotateApiKey = defineOperation({
  name: 'rotate_api_key',
  method: 'POST',
  path: '/manage/v1/api-keys/{key_id}/rotate',
  tag: 'api-keys',
  summary:
    'Issue a new plaintext for an API key (returned once); the old plaintext keeps working for grace_period_seconds, on every instance',
  input: {
    params: KeyIdParams,
    body: Type.Object(
      {
        grace_period_seconds: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: MAX_GRACE_SECONDS,
            default: 0,
            description: 'How long the old plaintext keeps working (0 = refused at once; at most 7 days)',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  output: CreatedApiKey,
  async handler({ svc, principal, params, body }) {
    const orgId = requireOrgKey(principal);
    const grace = body.grace_period_seconds ?? 0;
    const plaintext = generateApiKey();
    const record = await svc.stores.orgKeys.rotateKey(orgId, params.key_id, {
      keyHash: hashApiKey(plaintext),
      prefix: displayPrefix(plaintext),
      previousExpiresAt: grace > 0 ? new Date(Date.now() + grace * 1000).toISOString() : null,
    });
    if (!record) throw notFound('API key', params.key_id);
    return { ...keyView(record), key: plaintext };
  },
});

const ROLES = ['admin', 'inference'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The one place a caller's role is decided. Today it follows from the key's scope: org-wide keys
 * manage everything, project keys call models (and read their project's logs).
 */
export function roleOf(principal: Principal): Role {
  return principal.projectId === null ? 'admin' : 'inference';
}

const Me = Type.Object({
  object: Type.Literal('me'),
  actor: Type.Object({
    type: Type.Literal('api_key'),
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String(),
  }),
  role: Type.Union(ROLES.map((r) => Type.Literal(r))),
  org_id: Type.String(),
  project_id: Nullable(Type.String()),
  expires_at: Nullable(Timestamp),
  allowed_models: Nullable(Type.Array(Type.String())),
  rotated_key_expires_at: Nullable(
    Type.String({ description: 'Set when the caller used a rotated-out plaintext: when it stops working' }),
  ),
});

export const getMe = defineOperation({
  name: 'get_me',
  method: 'GET',
  path: '/manage/v1/me',
  tag: 'api-keys',
  summary: 'Who is calling: the API key, its role, project, expiry and allowed models (any key may ask)',
  input: {},
  output: Me,
  async handler({ svc, principal }) {
    const key = await svc.stores.orgKeys.getKey(principal.orgId, principal.keyId);
    if (!key) throw notFound('API key', principal.keyId);
    return {
      object: 'me' as const,
      actor: { type: 'api_key' as const, id: key.id, name: key.name, prefix: key.prefix },
      role: roleOf(principal),
      org_id: principal.orgId,
      project_id: principal.projectId,
      expires_at: key.expiresAt,
      allowed_models: key.allowedModels,
      rotated_key_expires_at: principal.graceEndsMs != null ? new Date(principal.graceEndsMs).toISOString() : null,
    };
  },
});

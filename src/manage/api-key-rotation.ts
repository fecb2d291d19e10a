// Key rotation and `GET /manage/v1/me`. Rotation swaps the stored hash and keeps the old one for a
// grace period; the change event carries it to every instance's principal mirror, and the end of
// the grace is part of the row, so no second event is needed when it passes.
import { Type } from '@sinclair/typebox';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import { notFound } from './access.ts';
import { CreatedApiKey, KeyIdParams, keyView, manageableKey, RoleSchema } from './api-key-schemas.ts';
import { defineOperation } from './operation.ts';
import { roleOf } from './roles.ts';
import { Nullable, Timestamp } from './schemas.ts';

const MAX_GRACE_SECONDS = 7 * 24 * 3600;

export const rotateApiKey = defineOperation({
  name: 'rotate_api_key',
  method: 'POST',
  role: 'developer',
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
    const orgId = principal.orgId;
    await manageableKey(svc, principal, params.key_id);
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

const Me = Type.Object({
  object: Type.Literal('me'),
  actor: Type.Union([
    Type.Object({
      type: Type.Literal('api_key'),
      id: Type.String(),
      name: Type.String(),
      prefix: Type.String(),
    }),
    // A person signed in through single sign-on (a dashboard session).
    Type.Object({
      type: Type.Literal('user'),
      id: Type.String(),
      name: Nullable(Type.String()),
      email: Nullable(Type.String()),
    }),
  ]),
  role: RoleSchema,
  org_id: Type.String(),
  project_id: Nullable(Type.String()),
  expires_at: Nullable(Timestamp),
  allowed_models: Nullable(Type.Array(Type.String())),
  allowed_tools: Nullable(Type.Array(Type.String())),
  rotated_key_expires_at: Nullable(
    Type.String({ description: 'Set when the caller used a rotated-out plaintext: when it stops working' }),
  ),
});

export const getMe = defineOperation({
  name: 'get_me',
  method: 'GET',
  role: 'any',
  path: '/manage/v1/me',
  tag: 'api-keys',
  summary:
    'Who is calling: the API key (its role, project, expiry and allowed models) or the signed-in user; any caller may ask',
  input: {},
  output: Me,
  async handler({ svc, principal }) {
    if (principal.user)
      return {
        object: 'me' as const,
        actor: { type: 'user' as const, ...principal.user },
        role: roleOf(principal),
        org_id: principal.orgId,
        project_id: principal.projectId,
        expires_at: null,
        allowed_models: null,
        allowed_tools: null,
        rotated_key_expires_at: null,
      };
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
      allowed_tools: key.allowedTools,
      rotated_key_expires_at: principal.graceEndsMs != null ? new Date(principal.graceEndsMs).toISOString() : null,
    };
  },
});

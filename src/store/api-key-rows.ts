// Row <-> record conversion for API keys. Stored JSON is read defensively: a hand-edited or older row
// yields "no limit" / "no pattern" rather than a crash in the principal mirror.
import type { RateLimits } from '../ports/counters.ts';
import { defaultKeyRole, isRole, type Role } from '../ports/roles.ts';
import { fromJsonText, isRecord } from '../util/json.ts';
import type { ApiKeysTable } from './schema.ts';

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  projectId: string | null;
  name: string;
  prefix: string;
  role: Role;
  /** The key's own rate limits; null for none. */
  rateLimits: RateLimits | null;
  /** Model glob / `@slug` patterns the key may call; null for every model. */
  allowedModels: string[] | null;
  /** `<server>__<tool>` glob patterns the key may see and call through /mcp/v1; null for every tool. */
  allowedTools: string[] | null;
  expiresAt: string | null;
  metadata: Record<string, string> | null;
  lastUsedAt: string | null;
  /** Until when the plaintext a rotation replaced still works; null when none does. */
  previousKeyExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  revokedAt: string | null;
}

/** What authentication needs: the record plus its hashes. */
export interface ApiKeyAuthRow extends ApiKeyRecord {
  keyHash: string;
  previousKeyHash: string | null;
}

const RATE_FIELDS = ['rpm', 'tpm', 'concurrency'] as const;

/** The stored JSON, keeping only positive finite numbers of the known fields (null when none is left). */
function rateLimitsOf(text: string | null): RateLimits | null {
  const v = fromJsonText(text);
  if (!isRecord(v)) return null;
  const out: RateLimits = {};
  for (const f of RATE_FIELDS) {
    const n = v[f];
    if (typeof n === 'number' && Number.isFinite(n) && n > 0) out[f] = n;
  }
  return Object.keys(out).length > 0 ? out : null;
}

function patternsOf(text: string | null): string[] | null {
  const v = fromJsonText(text);
  return Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string') : null;
}

function metadataOf(text: string | null): Record<string, string> | null {
  const v = fromJsonText(text);
  if (!isRecord(v)) return null;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) if (typeof val === 'string') out[k] = val;
  return out;
}

/**
 * A row from before roles reads as its scope's role; a value no release writes (a hand edit) reads
 * as inference, which can do nothing in the management API.
 */
function roleOf(r: ApiKeysTable): Role {
  if (r.role === null) return defaultKeyRole(r.project_id);
  return isRole(r.role) ? r.role : 'inference';
}

export function jsonOrNull(v: object | null | undefined): string | null {
  return v === null || v === undefined ? null : JSON.stringify(v);
}

export function toAuthRow(r: ApiKeysTable): ApiKeyAuthRow {
  return {
    id: r.id,
    orgId: r.org_id,
    projectId: r.project_id,
    name: r.name,
    prefix: r.prefix,
    role: roleOf(r),
    rateLimits: rateLimitsOf(r.rate_limits),
    allowedModels: patternsOf(r.allowed_models),
    allowedTools: patternsOf(r.allowed_tools),
    expiresAt: r.expires_at,
    metadata: metadataOf(r.metadata),
    lastUsedAt: r.last_used_at,
    previousKeyExpiresAt: r.previous_key_hash === null ? null : r.previous_key_expires_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    revokedAt: r.revoked_at,
    keyHash: r.key_hash,
    previousKeyHash: r.previous_key_hash,
  };
}

export function withoutHash(r: ApiKeyAuthRow): ApiKeyRecord {
  const { keyHash: _k, previousKeyHash: _p, ...rest } = r;
  return rest;
}

export function toRecord(r: ApiKeysTable): ApiKeyRecord {
  return withoutHash(toAuthRow(r));
}

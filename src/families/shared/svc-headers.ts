// The `X-Svc-*` request headers shared by both families (SPEC "Request headers").
import type { IncomingHttpHeaders } from 'node:http';

export interface SvcHeaders {
  userId?: string;
  tags: Record<string, string>;
  traceId?: string;
  conversationId?: string;
  dryRun: boolean;
  /** BYOK: never stored, never logged. */
  providerKey?: string;
  /** `Cache-Control: no-store` bypasses the semantic cache. */
  noStore: boolean;
  /** Family beta upstream version / beta flags (x-alt-* wins over the anthropic-* names the SDK sends). */
  altVersion?: string;
  altBeta?: string;
}

/**
 * An empty header counts as absent. Node lower-cases incoming header names, so a direct look-up is
 * enough; most of these headers are absent, and a case-insensitive scan for each would walk every
 * header of every call.
 */
function one(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

/** A request header's first value, trimmed; absent when empty (for the endpoints that read one or two). */
export function headerValue(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s === undefined || s === '' ? undefined : s;
}

/** Parses `k=v,k2=v2`; pieces without `=` are ignored rather than rejected (headers are often hand-written). */
export function parseTags(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!value) return out;
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k) out[k] = v;
  }
  return out;
}

export function readSvcHeaders(h: IncomingHttpHeaders): SvcHeaders {
  const dry = one(h, 'x-svc-dry-run')?.toLowerCase();
  const cacheControl = one(h, 'cache-control')?.toLowerCase();
  return {
    userId: one(h, 'x-svc-user-id'),
    tags: parseTags(one(h, 'x-svc-user-tags')),
    traceId: one(h, 'x-svc-trace-id'),
    conversationId: one(h, 'x-svc-conversation-id'),
    dryRun: dry === 'true' || dry === '1',
    providerKey: one(h, 'x-svc-provider-key'),
    noStore: cacheControl?.includes('no-store') ?? false,
    altVersion: one(h, 'x-alt-version') ?? one(h, 'anthropic-version'),
    altBeta: one(h, 'x-alt-beta') ?? one(h, 'anthropic-beta'),
  };
}

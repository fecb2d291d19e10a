// Service extensions carried in request bodies (`svc:*` keys, top level or under `extra_body`) plus the
// caller's `metadata` map. They steer the gateway and never reach an upstream.
import { invalid } from '../../errors/gateway-error.ts';
import { isRecord } from '../../util/json.ts';
import { describe } from './json.ts';

export interface SvcExtensions {
  tags: Record<string, string>;
  endUser?: string;
  cacheSkip?: boolean;
  trace?: boolean;
  metadata?: Record<string, unknown>;
}

export const SVC_PREFIX = 'svc:';

/** Every `svc:*` entry of the body, top-level keys winning over the same key under `extra_body`. */
function collectSvcEntries(body: Record<string, unknown>): Map<string, [string, unknown]> {
  const out = new Map<string, [string, unknown]>();
  const extra = body.extra_body;
  if (isRecord(extra)) {
    for (const [key, value] of Object.entries(extra)) {
      if (key.startsWith(SVC_PREFIX)) out.set(key, [`extra_body.${key}`, value]);
    }
  }
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith(SVC_PREFIX)) out.set(key, [key, value]);
  }
  return out;
}

/**
 * Reads and validates the extensions. Unknown `svc:*` keys are ignored (forward compatible with newer
 * SDK helpers); known keys with the wrong type are a 400.
 */
export function readSvcExtensions(body: Record<string, unknown>): SvcExtensions {
  const svc: SvcExtensions = { tags: {} };
  for (const [key, [path, value]] of collectSvcEntries(body)) {
    if (value === undefined || value === null) continue;
    switch (key) {
      case 'svc:tags':
        svc.tags = readTags(value, path);
        break;
      case 'svc:end_user':
        if (typeof value !== 'string') invalid(path, `expected a string, got ${describe(value)}`);
        svc.endUser = value;
        break;
      case 'svc:cache': {
        if (!isRecord(value)) invalid(path, `expected an object like {"skip": true}, got ${describe(value)}`);
        const skip = value.skip;
        if (skip !== undefined && typeof skip !== 'boolean') invalid(`${path}.skip`, `expected a boolean`);
        if (skip !== undefined) svc.cacheSkip = skip;
        break;
      }
      case 'svc:trace':
        if (typeof value !== 'boolean') invalid(path, `expected a boolean, got ${describe(value)}`);
        svc.trace = value;
        break;
    }
  }
  if (body.metadata !== undefined && body.metadata !== null) {
    if (!isRecord(body.metadata)) invalid('metadata', `expected an object, got ${describe(body.metadata)}`);
    svc.metadata = { ...body.metadata };
  }
  return svc;
}

function readTags(value: unknown, path: string): Record<string, string> {
  if (!isRecord(value)) invalid(path, `expected an object of string values, got ${describe(value)}`);
  const tags: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') invalid(`${path}.${k}`, `tag values must be strings, got ${describe(v)}`);
    tags[k] = v;
  }
  return tags;
}

/**
 * Copy of the body without `svc:*` keys (top level and inside `extra_body`, dropping `extra_body` when it
 * ends up empty) and without `metadata`. Key order and all other values are kept as sent.
 */
export function withoutExtensions(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith(SVC_PREFIX) || key === 'metadata') continue;
    if (key === 'extra_body' && isRecord(value)) {
      const rest = Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith(SVC_PREFIX)));
      if (Object.keys(rest).length > 0) out[key] = rest;
      continue;
    }
    out[key] = value;
  }
  return out;
}

// Label values from a finished call, each bounded to a small fixed set. Prometheus keeps one series
// per label combination forever, so anything a caller can choose freely (model names, `@slug`s,
// tags) must collapse into `other` before it becomes a label.
import { lookupModel } from '../providers/catalog/index.ts';
import { canonicalVendor, resolveDirectModel } from '../providers/registry.ts';
import type { VendorId } from '../providers/types.ts';

/** No value: the call never got that far (refused before routing, no upstream reached). */
export const NONE = 'none';
/** A value outside the known set. */
export const OTHER = 'other';

export type StatusClass = '2xx' | '4xx' | '5xx';

export interface Endpoint {
  family: string;
  endpoint: string;
}

/** CallRecord.requestType -> where the call came in. */
const ENDPOINTS: ReadonlyMap<string, Endpoint> = new Map([
  ['chat_completion', { family: 'alpha', endpoint: 'chat_completions' }],
  ['embedding', { family: 'alpha', endpoint: 'embeddings' }],
  ['message', { family: 'beta', endpoint: 'messages' }],
]);

const UNKNOWN_ENDPOINT: Endpoint = { family: OTHER, endpoint: OTHER };

export function endpointOf(requestType: string): Endpoint {
  return ENDPOINTS.get(requestType) ?? UNKNOWN_ENDPOINT;
}

/** A vendor id (aliases folded: `vendor_1` is `openai`), `none` without one, `other` for anything else. */
export function providerLabel(provider: string | null): VendorId | typeof NONE | typeof OTHER {
  if (provider === null || provider === '') return NONE;
  return canonicalVendor(provider) ?? OTHER;
}

/** The catalog's id for the model (snapshots and spellings fold onto it), or `other`. */
export function catalogModelLabel(vendor: VendorId, model: string): string {
  return lookupModel(vendor, model)?.id ?? OTHER;
}

/**
 * The model that served (or last failed) the call; for a call that never reached one, the model it
 * asked for. A routing config (`@slug`) or a name the catalog does not know is `other`.
 */
export function modelLabel(provider: string | null, modelUsed: string | null, modelRequested: string): string {
  if (modelUsed !== null && provider !== null) {
    const vendor = canonicalVendor(provider);
    return vendor ? catalogModelLabel(vendor, modelUsed) : OTHER;
  }
  if (modelRequested === '') return NONE;
  if (modelRequested.startsWith('@')) return OTHER;
  const direct = resolveDirectModel(modelRequested);
  return direct ? catalogModelLabel(direct.vendor, direct.model) : OTHER;
}

export function statusClass(status: number): StatusClass {
  // 499 (the caller left) counts with the caller's errors; 0 (never answered) with the gateway's.
  if (status >= 500 || status < 100) return '5xx';
  if (status >= 400) return '4xx';
  return '2xx';
}

const ERROR_KINDS: ReadonlySet<string> = new Set([
  'invalid_request',
  'authentication',
  'permission',
  'not_found',
  'rate_limit',
  'overloaded',
  'server',
  'timeout',
  'network',
]);

/** UpstreamErrorInfo.kind, or `other` for a kind this table does not know yet. */
export function errorKindLabel(kind: string): string {
  return ERROR_KINDS.has(kind) ? kind : OTHER;
}

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

type Family = 'alpha' | 'beta';

/**
 * CallRecord.requestType -> where the call came in: the API family and the endpoint, named after
 * its path (`/v1/files/{id}/content` is `files_content`). Every request type a route logs has an
 * entry; a test (test/metrics/endpoint-labels.test.ts) fails when one is missing. Batch calls
 * exist in both families, so their endpoint depends on the family the call names.
 */
const ENDPOINTS: ReadonlyMap<string, Endpoint> = new Map(
  (
    [
      ['chat_completion', 'alpha', 'chat_completions'],
      ['embedding', 'alpha', 'embeddings'],
      ['message', 'beta', 'messages'],
      ['response_create', 'alpha', 'responses'],
      ['response_retrieve', 'alpha', 'responses_retrieve'],
      ['response_delete', 'alpha', 'responses_delete'],
      ['response_cancel', 'alpha', 'responses_cancel'],
      ['response_input_items', 'alpha', 'responses_input_items'],
      ['image_generation', 'alpha', 'images_generations'],
      ['audio_speech', 'alpha', 'audio_speech'],
      ['audio_transcription', 'alpha', 'audio_transcriptions'],
      ['audio_translation', 'alpha', 'audio_translations'],
      ['file_upload', 'alpha', 'files_upload'],
      ['file_list', 'alpha', 'files_list'],
      ['file_retrieve', 'alpha', 'files_retrieve'],
      ['file_delete', 'alpha', 'files_delete'],
      ['file_download', 'alpha', 'files_content'],
    ] as const
  ).map(([type, family, endpoint]) => [type, { family, endpoint }]),
);

const BATCH_ENDPOINTS: Readonly<Record<Family, ReadonlyMap<string, Endpoint>>> = {
  alpha: batchEndpoints('alpha', 'batches', ['create', 'list', 'retrieve', 'cancel', 'execution']),
  beta: batchEndpoints('beta', 'messages_batches', [
    'create',
    'list',
    'retrieve',
    'cancel',
    'delete',
    'results',
    'execution',
  ]),
};

function batchEndpoints(family: Family, prefix: string, ops: readonly string[]): ReadonlyMap<string, Endpoint> {
  return new Map(ops.map((op) => [`batch_${op}`, { family, endpoint: `${prefix}_${op}` }]));
}

const UNKNOWN_ENDPOINT: Endpoint = { family: OTHER, endpoint: OTHER };

/**
 * `family` is the call's own (CallRecord.family); a batch's execution row names its batch's family
 * in its trace instead.
 */
export function endpointOf(requestType: string, family?: Family, trace?: unknown): Endpoint {
  const known = ENDPOINTS.get(requestType);
  if (known !== undefined) return known;
  const f = family ?? traceFamily(trace);
  return (f === undefined ? undefined : BATCH_ENDPOINTS[f].get(requestType)) ?? UNKNOWN_ENDPOINT;
}

function traceFamily(trace: unknown): Family | undefined {
  if (typeof trace !== 'object' || trace === null || !('family' in trace)) return undefined;
  return trace.family === 'alpha' || trace.family === 'beta' ? trace.family : undefined;
}

/** A vendor id (aliases folded: `vendor_1` is `openai`), `none` without one, `other` for anything else. */
export function vendorLabel(vendor: string | null): VendorId | typeof NONE | typeof OTHER {
  if (vendor === null || vendor === '') return NONE;
  return canonicalVendor(vendor) ?? OTHER;
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

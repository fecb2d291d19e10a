// Row shapes of batches and batch_items (migration 110) and their mapping to records: what the
// batch store reads and writes, kept apart from its queries.
import type { JsonValue } from '../ir/types.ts';
import { fromJsonText } from '../util/json.ts';

const jsonOf = (text: string): JsonValue => fromJsonText(text) as JsonValue;

export type BatchesTable = {
  id: string;
  org_id: string;
  project_id: string | null;
  key_id: string;
  family: string;
  mode: string;
  status: string;
  endpoint: string | null;
  completion_window: string | null;
  metadata: string | null;
  input_file_id: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  errors: string | null;
  model: string | null;
  credential_id: string | null;
  upstream_id: string | null;
  upstream: string | null;
  concurrency: number;
  total: number;
  succeeded: number;
  errored: number;
  canceled: number;
  expired: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  cost_recorded_at: number | null;
  created_at: number;
  expires_at: number;
  in_progress_at: number | null;
  finalizing_at: number | null;
  cancelling_at: number | null;
  ended_at: number | null;
  deleted_at: number | null;
  /** The create call's traceparent (migration 200); null when tracing was off. */
  trace_link: string | null;
};

export type BatchItemsTable = {
  batch_id: string;
  idx: number;
  custom_id: string;
  request: string;
  state: string;
  holder: string | null;
  lease_until: number | null;
  attempts: number;
  result: string | null;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  updated_at: number;
};

export type BatchFamily = 'alpha' | 'beta';
export type BatchMode = 'local' | 'passthrough';
export type ItemState = 'pending' | 'running' | 'succeeded' | 'errored' | 'canceled' | 'expired';
/** The states an item ends in, each with its counter on the batch. */
export type SettledState = Exclude<ItemState, 'pending' | 'running'>;

export interface BatchRecord {
  id: string;
  orgId: string;
  projectId: string | null;
  keyId: string;
  family: BatchFamily;
  mode: BatchMode;
  status: string;
  endpoint: string | null;
  completionWindow: string | null;
  metadata: Record<string, string> | null;
  inputFileId: string | null;
  outputFileId: string | null;
  errorFileId: string | null;
  /** Alpha: the batch-level errors object (`{object: 'list', data}`), e.g. why it failed. */
  errors: JsonValue | null;
  /** The model of the first request (what the batch's log rows name). */
  model: string | null;
  credentialId: string | null;
  upstreamId: string | null;
  /** Pass-through: the vendor's last batch object. */
  upstream: JsonValue | null;
  concurrency: number;
  total: number;
  succeeded: number;
  errored: number;
  canceled: number;
  expired: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  costRecordedAt: number | null;
  createdAt: number;
  expiresAt: number;
  inProgressAt: number | null;
  finalizingAt: number | null;
  cancellingAt: number | null;
  endedAt: number | null;
  /** The create call's W3C traceparent, which the items' traces link to; null when tracing was off. */
  traceLink?: string | null;
}

export interface NewItem {
  idx: number;
  customId: string;
  request: JsonValue;
  /** Default `pending`; an invalid line is stored settled (`errored`) with its error as result. */
  state?: 'pending' | 'errored';
  result?: JsonValue;
}

export interface ItemRecord {
  batchId: string;
  idx: number;
  customId: string;
  request: JsonValue;
  state: ItemState;
  attempts: number;
  result: JsonValue | null;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface ItemOutcome {
  state: SettledState;
  result: JsonValue;
  model?: string | null;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

/** The fields a transition may set (camelCase of the columns). */
export type BatchPatch = Partial<
  Pick<
    BatchRecord,
    | 'status'
    | 'outputFileId'
    | 'errorFileId'
    | 'errors'
    | 'model'
    | 'upstream'
    | 'inProgressAt'
    | 'finalizingAt'
    | 'cancellingAt'
    | 'endedAt'
    | 'costRecordedAt'
    | 'total'
    | 'succeeded'
    | 'errored'
    | 'canceled'
    | 'expired'
    | 'createdAt'
    | 'expiresAt'
    | 'inputTokens'
    | 'outputTokens'
    | 'costUsd'
  >
>;

export const COLUMN: Record<keyof BatchPatch, keyof BatchesTable> = {
  status: 'status',
  outputFileId: 'output_file_id',
  errorFileId: 'error_file_id',
  errors: 'errors',
  model: 'model',
  upstream: 'upstream',
  inProgressAt: 'in_progress_at',
  finalizingAt: 'finalizing_at',
  cancellingAt: 'cancelling_at',
  endedAt: 'ended_at',
  costRecordedAt: 'cost_recorded_at',
  total: 'total',
  succeeded: 'succeeded',
  errored: 'errored',
  canceled: 'canceled',
  expired: 'expired',
  createdAt: 'created_at',
  expiresAt: 'expires_at',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  costUsd: 'cost_usd',
};

export const JSON_FIELDS = new Set<keyof BatchPatch>(['errors', 'upstream']);

export const json = (v: JsonValue | Record<string, string> | null): string | null =>
  v === null ? null : JSON.stringify(v);

export function toRow(b: BatchRecord): BatchesTable {
  return {
    id: b.id,
    org_id: b.orgId,
    project_id: b.projectId,
    key_id: b.keyId,
    family: b.family,
    mode: b.mode,
    status: b.status,
    endpoint: b.endpoint,
    completion_window: b.completionWindow,
    metadata: json(b.metadata),
    input_file_id: b.inputFileId,
    output_file_id: b.outputFileId,
    error_file_id: b.errorFileId,
    errors: json(b.errors),
    model: b.model,
    credential_id: b.credentialId,
    upstream_id: b.upstreamId,
    upstream: json(b.upstream),
    concurrency: b.concurrency,
    total: b.total,
    succeeded: b.succeeded,
    errored: b.errored,
    canceled: b.canceled,
    expired: b.expired,
    input_tokens: b.inputTokens,
    output_tokens: b.outputTokens,
    cost_usd: b.costUsd,
    cost_recorded_at: b.costRecordedAt,
    created_at: b.createdAt,
    expires_at: b.expiresAt,
    in_progress_at: b.inProgressAt,
    finalizing_at: b.finalizingAt,
    cancelling_at: b.cancellingAt,
    ended_at: b.endedAt,
    deleted_at: null,
    trace_link: b.traceLink ?? null,
  };
}

const num = (v: number | string): number => Number(v);
const numOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

export function fromRow(r: BatchesTable): BatchRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    projectId: r.project_id,
    keyId: r.key_id,
    family: r.family as BatchFamily,
    mode: r.mode as BatchMode,
    status: r.status,
    endpoint: r.endpoint,
    completionWindow: r.completion_window,
    metadata: r.metadata === null ? null : (fromJsonText(r.metadata) as Record<string, string>),
    inputFileId: r.input_file_id,
    outputFileId: r.output_file_id,
    errorFileId: r.error_file_id,
    errors: r.errors === null ? null : jsonOf(r.errors),
    model: r.model,
    credentialId: r.credential_id,
    upstreamId: r.upstream_id,
    upstream: r.upstream === null ? null : jsonOf(r.upstream),
    concurrency: r.concurrency,
    total: r.total,
    succeeded: r.succeeded,
    errored: r.errored,
    canceled: r.canceled,
    expired: r.expired,
    inputTokens: num(r.input_tokens),
    outputTokens: num(r.output_tokens),
    costUsd: r.cost_usd,
    costRecordedAt: numOrNull(r.cost_recorded_at),
    createdAt: num(r.created_at),
    expiresAt: num(r.expires_at),
    inProgressAt: numOrNull(r.in_progress_at),
    finalizingAt: numOrNull(r.finalizing_at),
    cancellingAt: numOrNull(r.cancelling_at),
    endedAt: numOrNull(r.ended_at),
    traceLink: r.trace_link ?? null,
  };
}

export function itemRow(batchId: string, it: NewItem, now: number): BatchItemsTable {
  return {
    batch_id: batchId,
    idx: it.idx,
    custom_id: it.customId,
    request: JSON.stringify(it.request),
    state: it.state ?? 'pending',
    holder: null,
    lease_until: null,
    attempts: 0,
    result: it.result === undefined ? null : JSON.stringify(it.result),
    model: null,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    updated_at: now,
  };
}

export function fromItemRow(r: BatchItemsTable): ItemRecord {
  return {
    batchId: r.batch_id,
    idx: r.idx,
    customId: r.custom_id,
    request: jsonOf(r.request),
    state: r.state as ItemState,
    attempts: r.attempts,
    result: r.result === null ? null : jsonOf(r.result),
    model: r.model,
    inputTokens: num(r.input_tokens),
    outputTokens: num(r.output_tokens),
    costUsd: r.cost_usd,
  };
}

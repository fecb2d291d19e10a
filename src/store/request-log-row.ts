// A request-log row, and the row as the table stores it. Apart from request-logs.ts so that the
// SQLite log worker can turn the journal lines it is handed into insert values without loading the
// query builder (see request-log-sqlite.ts).
import { fromJsonText, toJsonText } from '../util/json.ts';
import { LOG_COLUMNS, type LogValue } from './request-log-sqlite.ts';
import type { RequestLogsTable } from './schema.ts';

export interface RequestLogRow {
  /** The request id, `req_<ulid>`. */
  id: string;
  requestType: string;
  orgId: string;
  projectId: string | null;
  apiKeyId: string | null;
  endUser: string | null;
  tags: Record<string, string> | null;
  traceId: string | null;
  conversationId: string | null;
  modelRequested: string | null;
  modelUsed: string | null;
  provider: string | null;
  credentialId: string | null;
  statusCode: number;
  latencyMs: number;
  ttfbMs: number | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  costUsd: number | null;
  error: unknown;
  decisionTrace: unknown;
  /** Null when the project's retention settings say not to keep bodies. */
  requestBody: string | null;
  responseBody: string | null;
  createdAt: string;
  /** `hit` / `miss` when the project's semantic cache was consulted, else null. */
  cache: 'hit' | 'miss' | null;
  /** The request id this call re-ran (`POST /manage/v1/logs/{id}/replay`). */
  replayOf: string | null;
  /** Cache hits: what the upstream call behind the served entry cost (the hit itself costs 0). */
  savedCostUsd: number;
  /** Similarity of the entry served (1 on the exact tier), or in shadow mode of the would-be hit. */
  cacheSimilarity: number | null;
  /** Shadow mode's would-be hits: whether the fresh answer matched the cached one. */
  cacheShadowMatch: boolean | null;
  /** The OpenTelemetry trace id of a traced call (the tracing feature's note); absent when not traced. */
  otelTraceId?: string | null;
  /**
   * The strongest guardrail action of the call (block > mask > flag), `shadow_<action>` when only
   * shadow policies had a verdict; absent or null when no verdict concerned it.
   */
  guardrailAction?: string | null;
}

/** The semantic cache's columns of a call that did not consult it. */
export const CACHE_NOT_CONSULTED = {
  cache: null,
  savedCostUsd: 0,
  cacheSimilarity: null,
  cacheShadowMatch: null,
} as const satisfies Pick<RequestLogRow, 'cache' | 'savedCostUsd' | 'cacheSimilarity' | 'cacheShadowMatch'>;

const flag = (v: boolean | null): number | null => (v === null ? null : v ? 1 : 0);

export function toLogTable(r: RequestLogRow): RequestLogsTable {
  return {
    id: r.id,
    request_type: r.requestType,
    org_id: r.orgId,
    project_id: r.projectId,
    api_key_id: r.apiKeyId,
    end_user: r.endUser,
    tags: toJsonText(r.tags),
    trace_id: r.traceId,
    conversation_id: r.conversationId,
    model_requested: r.modelRequested,
    model_used: r.modelUsed,
    provider: r.provider,
    credential_id: r.credentialId,
    status_code: r.statusCode,
    latency_ms: Math.round(r.latencyMs),
    ttfb_ms: r.ttfbMs === null ? null : Math.round(r.ttfbMs),
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cache_read_tokens: r.cacheReadTokens,
    cache_creation_tokens: r.cacheCreationTokens,
    cost_usd: r.costUsd,
    error: toJsonText(r.error),
    decision_trace: toJsonText(r.decisionTrace),
    request_body: r.requestBody,
    response_body: r.responseBody,
    created_at: r.createdAt,
    // Rows journaled by an older version lack the newer fields.
    cache: r.cache ?? null,
    replay_of: r.replayOf ?? null,
    saved_cost_usd: r.savedCostUsd ?? 0,
    cache_similarity: r.cacheSimilarity ?? null,
    cache_shadow_match: flag(r.cacheShadowMatch ?? null),
    otel_trace_id: r.otelTraceId ?? null,
    guardrail_action: r.guardrailAction ?? null,
  };
}

export function fromLogTable(t: RequestLogsTable): RequestLogRow {
  const tags = fromJsonText(t.tags);
  return {
    id: t.id,
    requestType: t.request_type,
    orgId: t.org_id,
    projectId: t.project_id,
    apiKeyId: t.api_key_id,
    endUser: t.end_user,
    tags: tags === null ? null : (tags as Record<string, string>),
    traceId: t.trace_id,
    conversationId: t.conversation_id,
    modelRequested: t.model_requested,
    modelUsed: t.model_used,
    provider: t.provider,
    credentialId: t.credential_id,
    statusCode: Number(t.status_code),
    latencyMs: Number(t.latency_ms),
    ttfbMs: t.ttfb_ms === null ? null : Number(t.ttfb_ms),
    inputTokens: Number(t.input_tokens),
    outputTokens: Number(t.output_tokens),
    cacheReadTokens: Number(t.cache_read_tokens),
    cacheCreationTokens: Number(t.cache_creation_tokens),
    costUsd: t.cost_usd === null ? null : Number(t.cost_usd),
    error: fromJsonText(t.error),
    decisionTrace: fromJsonText(t.decision_trace),
    requestBody: t.request_body,
    responseBody: t.response_body,
    createdAt: t.created_at,
    cache: t.cache === 'hit' || t.cache === 'miss' ? t.cache : null,
    replayOf: t.replay_of,
    savedCostUsd: Number(t.saved_cost_usd),
    cacheSimilarity: t.cache_similarity === null ? null : Number(t.cache_similarity),
    cacheShadowMatch: t.cache_shadow_match === null ? null : Number(t.cache_shadow_match) === 1,
    // Only when there is one, as the row the hook builds carries it only for traced calls.
    ...(t.otel_trace_id == null ? {} : { otelTraceId: t.otel_trace_id }),
    ...(t.guardrail_action == null ? {} : { guardrailAction: t.guardrail_action }),
  };
}

/**
 * A row as the values of LOG_COLUMNS, in order (what SQLITE_LOG_INSERT binds): `toLogTable` read in
 * column order, written out because this runs once per call on the proxy thread, where building the
 * table object first and mapping the columns over it cost a third more.
 */
export function logValues(r: RequestLogRow): LogValue[] {
  return [
    r.id,
    r.requestType,
    r.orgId,
    r.projectId,
    r.apiKeyId,
    r.endUser,
    toJsonText(r.tags),
    r.traceId,
    r.conversationId,
    r.modelRequested,
    r.modelUsed,
    r.provider,
    r.credentialId,
    r.statusCode,
    Math.round(r.latencyMs),
    r.ttfbMs === null ? null : Math.round(r.ttfbMs),
    r.inputTokens,
    r.outputTokens,
    r.cacheReadTokens,
    r.cacheCreationTokens,
    r.costUsd,
    toJsonText(r.error),
    toJsonText(r.decisionTrace),
    r.requestBody,
    r.responseBody,
    r.createdAt,
    r.cache ?? null,
    r.replayOf ?? null,
    r.savedCostUsd ?? 0,
    r.cacheSimilarity ?? null,
    flag(r.cacheShadowMatch ?? null),
    r.otelTraceId ?? null,
    r.guardrailAction ?? null,
  ];
}

/**
 * A row as one line of text: the JSON array of its LOG_COLUMNS values. Made once per row on the
 * proxy thread and used as it is by both the journal (the line on disk) and the SQLite log worker
 * (which binds the parsed array), so neither serializes the row again; positional, it is also
 * shorter and parses several times faster than the row as an object. Never holds a newline.
 */
export function logLine(r: RequestLogRow): string {
  return JSON.stringify(logValues(r));
}

/**
 * The insert values of a journal line, this version's or an older one's: an older version's array
 * may lack the columns added since (they are only ever appended to LOG_COLUMNS), and lines written
 * before they were positional hold the row as an object. Throws on a line that is not JSON.
 */
export function lineValues(line: string): LogValue[] {
  const parsed: unknown = JSON.parse(line);
  if (Array.isArray(parsed) && parsed.length === LOG_COLUMNS.length) return parsed as LogValue[];
  return logValues(parsedRow(parsed));
}

/** The row of a journal line (any version's); throws on a line that is not JSON (cut by a kill). */
export function lineRow(line: string): RequestLogRow {
  return parsedRow(JSON.parse(line));
}

function parsedRow(parsed: unknown): RequestLogRow {
  if (!Array.isArray(parsed)) return parsed as RequestLogRow;
  const table: Partial<Record<keyof RequestLogsTable, LogValue>> = {};
  for (const [i, column] of LOG_COLUMNS.entries()) table[column] = (parsed[i] as LogValue | undefined) ?? null;
  return fromLogTable(table as RequestLogsTable);
}

// How request-log rows look over the management API: a summary per list entry, the full record
// with bodies, trace, attempts and the cost breakdown for `get_log`.
import { type Static, Type } from '@sinclair/typebox';
import { computeCost, type PriceLookup } from '../providers/catalog/cost.ts';
import { canonicalVendor } from '../providers/registry.ts';
import type { ApiKeyRecord } from '../store/org-keys.ts';
import type { RequestLogRow } from '../store/request-logs.ts';
import { Nullable, Timestamp } from './schemas.ts';

export const LogSummary = Type.Object({
  id: Type.String(),
  object: Type.Literal('request_log'),
  created_at: Timestamp,
  request_type: Type.String(),
  project_id: Nullable(Type.String()),
  model_requested: Nullable(Type.String()),
  model_used: Nullable(Type.String()),
  provider: Nullable(Type.String()),
  status_code: Type.Integer(),
  latency_ms: Type.Number(),
  ttfb_ms: Nullable(Type.Number()),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  cost_usd: Nullable(Type.Number()),
  end_user: Nullable(Type.String()),
  tags: Type.Record(Type.String(), Type.String()),
  trace_id: Nullable(Type.String()),
  conversation_id: Nullable(Type.String()),
  cache: Nullable(Type.String({ description: 'hit, miss, or null when no cache was consulted' })),
  replay_of: Nullable(Type.String()),
  saved_cost_usd: Type.Number({
    description: 'Cache hits: what the upstream call behind the served answer cost (the hit itself costs 0)',
  }),
  cache_similarity: Nullable(
    Type.Number({
      description: 'Similarity of the cached entry served (1 on the exact tier), or in shadow mode of the would-be hit',
    }),
  ),
  cache_shadow_match: Nullable(
    Type.Boolean({
      description: 'Shadow mode, would-be hits only: whether the fresh answer matched the cached one',
    }),
  ),
});

const Attempt = Type.Object(
  {
    model: Type.String(),
    provider: Type.String(),
    status: Type.Integer(),
    outcome: Type.String(),
    latency_ms: Type.Number(),
    cost_usd: Type.Number(),
    error: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const Json = Type.Unknown({ description: 'JSON value' });

export const LogRecord = Type.Composite([
  LogSummary,
  Type.Object({
    api_key_id: Nullable(Type.String()),
    api_key: Nullable(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          prefix: Type.String(),
          metadata: Nullable(Type.Record(Type.String(), Type.String())),
        },
        { description: 'The key as it is now (renamed or re-tagged since the call: the current values)' },
      ),
    ),
    credential_id: Nullable(Type.String()),
    otel_trace_id: Nullable(
      Type.String({ description: 'The OpenTelemetry trace the call was recorded in; null when it was not traced' }),
    ),
    otel_trace_url: Nullable(
      Type.String({ description: 'otel_trace_id in SWITCHYARD_TRACE_URL_TEMPLATE; null when either is unset' }),
    ),
    cache_read_tokens: Type.Integer(),
    cache_write_tokens: Type.Integer(),
    error: Json,
    bodies_retained: Type.Boolean(),
    request: Json,
    response: Json,
    decision_trace: Json,
    attempts: Type.Array(Attempt),
    cost: Type.Object({
      input_usd: Type.Number(),
      output_usd: Type.Number(),
      cache_read_usd: Type.Number(),
      cache_write_usd: Type.Number(),
      other_attempts_usd: Type.Number({ description: 'Fallbacks that failed, ensemble losers, cascade steps' }),
      total_usd: Type.Number(),
    }),
  }),
]);

export function logSummary(r: RequestLogRow): Static<typeof LogSummary> {
  return {
    id: r.id,
    object: 'request_log',
    created_at: r.createdAt,
    request_type: r.requestType,
    project_id: r.projectId,
    model_requested: r.modelRequested,
    model_used: r.modelUsed,
    provider: r.provider,
    status_code: r.statusCode,
    latency_ms: r.latencyMs,
    ttfb_ms: r.ttfbMs,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cost_usd: r.costUsd,
    end_user: r.endUser,
    tags: r.tags ?? {},
    trace_id: r.traceId,
    conversation_id: r.conversationId,
    cache: r.cache,
    replay_of: r.replayOf,
    saved_cost_usd: r.savedCostUsd,
    cache_similarity: r.cacheSimilarity,
    cache_shadow_match: r.cacheShadowMatch,
  };
}

/** A stored body as JSON when it parses (a body cut at the size cap stays a string). */
function body(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function attemptsOf(trace: unknown): Array<Static<typeof Attempt>> {
  if (typeof trace !== 'object' || trace === null) return [];
  const list = (trace as { attempts?: unknown }).attempts;
  return Array.isArray(list) ? (list as Array<Static<typeof Attempt>>) : [];
}

const usd = (n: number): number => Math.round(n * 1e9) / 1e9;

/**
 * The served answer priced as calls are (the org's override, else the catalog); the rest of the
 * stored total is other attempts. The override is today's: one changed since the call splits the
 * stored total at the new rates (other attempts never go below 0).
 */
function costBreakdown(r: RequestLogRow, prices: PriceLookup | undefined) {
  const total = r.costUsd ?? 0;
  const vendor = r.provider ? canonicalVendor(r.provider) : undefined;
  const served =
    vendor && r.modelUsed
      ? computeCost(
          vendor,
          r.modelUsed,
          {
            input: r.inputTokens,
            output: r.outputTokens,
            cacheRead: r.cacheReadTokens,
            cacheWrite: r.cacheCreationTokens,
          },
          { price: prices?.(r.orgId, vendor, r.modelUsed) },
        )
      : undefined;
  const b = served?.known ? served.breakdown : { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const servedTotal = b.input + b.output + b.cacheRead + b.cacheWrite;
  return {
    input_usd: b.input,
    output_usd: b.output,
    cache_read_usd: b.cacheRead,
    cache_write_usd: b.cacheWrite,
    other_attempts_usd: served?.known ? usd(Math.max(0, total - servedTotal)) : 0,
    total_usd: usd(total),
  };
}

/** `traceUrlTemplate`: SWITCHYARD_TRACE_URL_TEMPLATE, `{trace_id}` standing for the OTel trace id. */
export function logRecord(
  r: RequestLogRow,
  key?: ApiKeyRecord,
  traceUrlTemplate: string | null = null,
  prices?: PriceLookup,
): Static<typeof LogRecord> {
  const otel = r.otelTraceId ?? null;
  return {
    ...logSummary(r),
    api_key_id: r.apiKeyId,
    api_key: key ? { id: key.id, name: key.name, prefix: key.prefix, metadata: key.metadata } : null,
    credential_id: r.credentialId,
    otel_trace_id: otel,
    otel_trace_url: otel === null || traceUrlTemplate === null ? null : traceUrlTemplate.replaceAll('{trace_id}', otel),
    cache_read_tokens: r.cacheReadTokens,
    cache_write_tokens: r.cacheCreationTokens,
    error: r.error ?? null,
    bodies_retained: r.requestBody !== null || r.responseBody !== null,
    request: body(r.requestBody),
    response: body(r.responseBody),
    decision_trace: r.decisionTrace ?? null,
    attempts: attemptsOf(r.decisionTrace),
    cost: costBreakdown(r, prices),
  };
}

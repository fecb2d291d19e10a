// GET /manage/v1/analytics/report (SPEC "Management API: analytics and logs"): requests, cost,
// tokens, errors and latency percentiles per hour or day, read from the rollups. Parameters are
// parsed here so that every bad one is a 400 naming it; the numbers come from logs/analytics-report.
import { Type } from '@sinclair/typebox';
import { GatewayError, invalid } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import {
  analyticsReport,
  bucketCount,
  type Granularity,
  type GroupBy,
  type ReportRequest,
} from '../logs/analytics-report.ts';
import { ALL_TYPES, INFERENCE, INFERENCE_REQUEST_TYPES, type RequestTypeFilter } from '../logs/report-request-types.ts';
import { KEY_METADATA_TAG } from '../util/key-metadata.ts';
import { notFound } from './access.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, Timestamp } from './schemas.ts';
import type { Services } from './services.ts';

const MAX_BUCKETS = 10_000;

function bad(param: string, problem: string): never {
  return invalid(param, problem, 'invalid_parameter');
}
const DEFAULT_SPAN_MS = 24 * 3600 * 1000;

const Latency = Nullable(Type.Number({ description: 'Within 2% of the exact value (log-scale histogram)' }));

const Point = Type.Object({
  bucket: Timestamp,
  group: Type.Optional(Nullable(Type.String({ description: 'The value grouped on (with group_by); null = none' }))),
  requests: Type.Integer(),
  cost_usd: Type.Number(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  errors: Type.Integer(),
  p50_latency_ms: Latency,
  p95_latency_ms: Latency,
  p99_latency_ms: Latency,
});

const Totals = Type.Object({
  requests: Type.Integer(),
  cost_usd: Type.Number(),
  error_rate: Type.Number(),
  errors: Type.Integer(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  p50_latency_ms: Latency,
  p95_latency_ms: Latency,
  p99_latency_ms: Latency,
});

const Period = {
  start: Timestamp,
  end: Timestamp,
  series: Type.Array(Point),
  totals: Totals,
};

const Report = Type.Object({
  granularity: Type.String(),
  group_by: Nullable(Type.String()),
  request_types: Nullable(Type.Array(Type.String(), { description: 'The request types counted; null = all' })),
  ...Period,
  comparison: Type.Optional(Type.Object(Period, { description: 'The period of equal length just before' })),
});

const Query = Type.Object(
  {
    start: Type.Optional(
      Type.String({ maxLength: 64, description: 'ISO 8601, rounded down to the hour; default: 24 hours before end' }),
    ),
    end: Type.Optional(
      Type.String({ maxLength: 64, description: 'ISO 8601, exclusive, rounded up to the hour; default: now' }),
    ),
    granularity: Type.Optional(
      Type.Unsafe<Granularity>({
        type: 'string',
        enum: ['hour', 'day'],
        default: 'hour',
        description: 'Bucket size; days are UTC days',
      }),
    ),
    project_id: Type.Optional(Type.String({ maxLength: 100 })),
    group_by: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'model | provider | project | end_user | request_type | tag:<key> | key_metadata:<name> (metadata of the calling API key); every point then carries `group`',
      }),
    ),
    request_type: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: `Comma-separated request types to count; \`${INFERENCE}\` (the default) stands for ${INFERENCE_REQUEST_TYPES.join(', ')}; \`${ALL_TYPES}\` counts every type`,
      }),
    ),
    tags: Type.Optional(
      Type.String({ maxLength: 4000, description: 'JSON object, e.g. {"team":"search"}: rows must carry every pair' }),
    ),
    include_comparison: Type.Optional(
      Type.Boolean({ default: false, description: 'Add `comparison`: the period of equal length just before' }),
    ),
  },
  { additionalProperties: false },
);

// ISO 8601 as people write it: a date, or a date and time with an optional zone (UTC when absent).
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:\d{2})?)?$/i;

function parseTime(name: string, text: string): number {
  const m = ISO_TIME.exec(text.trim());
  const ms = m ? Date.parse(m[2] === undefined ? `${m[1]}T00:00:00Z` : `${m[1]}T${m[2]}${m[3] ?? 'Z'}`) : Number.NaN;
  if (Number.isNaN(ms)) bad(name, `expected an ISO 8601 time such as 2025-06-01T00:00:00Z, got '${text}'`);
  return ms;
}

const GROUP_KINDS = new Set(['model', 'provider', 'project', 'end_user', 'request_type'] as const);

function parseGroupBy(text: string | undefined): GroupBy | null {
  if (text === undefined || text === '') return null;
  for (const kind of GROUP_KINDS) if (text === kind) return { kind };
  if (text.startsWith('tag:') && text.length > 4) return { kind: 'tag', key: text.slice(4) };
  // Key metadata is logged among the tags under its reserved prefix (src/util/key-metadata.ts).
  if (text.startsWith(KEY_METADATA_TAG) && text.length > KEY_METADATA_TAG.length) return { kind: 'tag', key: text };
  return bad(
    'group_by',
    `must be one of ${[...GROUP_KINDS].join(', ')}, tag:<key> or ${KEY_METADATA_TAG}<name>, got '${text}'`,
  );
}

// The shape of every request_type the gateway logs; anything else is a typo that would count nothing.
const TYPE_NAME = /^[a-z][a-z0-9_]{0,63}$/;

function parseRequestTypes(text: string | undefined): RequestTypeFilter | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const names = text.split(',').map((t) => t.trim());
  for (const n of names) {
    if (!TYPE_NAME.test(n)) {
      bad(
        'request_type',
        `expected request types such as chat_completion,batch_retrieve, ${INFERENCE} or ${ALL_TYPES}, got '${n}'`,
      );
    }
  }
  return names.includes(ALL_TYPES) ? ALL_TYPES : names;
}

function parseTags(text: string | undefined): Record<string, string> | null {
  if (text === undefined || text === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return bad('tags', 'must be a JSON object such as {"team":"search"}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return bad('tags', 'must be a JSON object such as {"team":"search"}');
  }
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'string') bad('tags', `the value of '${k}' must be a string`);
  }
  return parsed as Record<string, string>;
}

/** An org key may name any of its projects; a project key sees only its own. */
function projectScope(svc: Services, principal: Principal, requested: string | undefined): string | undefined {
  if (principal.projectId !== null) {
    if (requested !== undefined && requested !== principal.projectId) {
      throw new GatewayError('project_out_of_scope', {
        vars: { project: principal.projectId, requested },
        param: 'project_id',
      });
    }
    return principal.projectId;
  }
  if (requested === undefined) return undefined;
  const p = svc.projects.cached(requested);
  if (!p || p.orgId !== principal.orgId) throw notFound('project', requested);
  return requested;
}

const getAnalyticsReport = defineOperation({
  name: 'get_analytics_report',
  method: 'GET',
  role: 'inference',
  path: '/manage/v1/analytics/report',
  tag: 'analytics',
  summary: 'Requests, cost, tokens, errors and latency percentiles per hour or day',
  description:
    'Read from rollups kept as requests are logged, so reports cover periods whose raw logs have expired. ' +
    `By default only inference calls count (request_type ${INFERENCE_REQUEST_TYPES.join(', ')}, and rows rolled up ` +
    'before request types were kept); polls and listings such as batch_retrieve, response_retrieve or file_list do not. ' +
    `request_type names the types to count instead (comma-separated; ${INFERENCE} stands for the default list, ` +
    `${ALL_TYPES} for every type). ` +
    'Without group_by the series has every bucket of the window; with it, one point per bucket and group that ' +
    'had requests. Per organization and UTC day at most 1000 end users and 200 tag sets are kept apart; later ' +
    "ones are reported as group 'other' (and do not match a tags filter). A project-scoped key sees its own project only.",
  input: { query: Query },
  output: Report,
  async handler({ svc, principal, query }) {
    const end = query.end === undefined ? Date.now() : parseTime('end', query.end);
    const start = query.start === undefined ? end - DEFAULT_SPAN_MS : parseTime('start', query.start);
    if (end <= start) bad('end', 'must be after start');
    const granularity = query.granularity ?? 'hour';
    const buckets = bucketCount(start, end, granularity);
    if (buckets > MAX_BUCKETS) {
      const dayWouldFit = granularity === 'hour' && bucketCount(start, end, 'day') <= MAX_BUCKETS;
      bad(
        dayWouldFit ? 'granularity' : 'start',
        `the range holds ${buckets} ${granularity} buckets; at most ${MAX_BUCKETS} are allowed`,
      );
    }
    const req: ReportRequest = {
      orgId: principal.orgId,
      projectId: projectScope(svc, principal, query.project_id),
      start,
      end,
      granularity,
      groupBy: parseGroupBy(query.group_by),
      tags: parseTags(query.tags),
      requestTypes: parseRequestTypes(query.request_type),
      includeComparison: query.include_comparison === true,
    };
    // Rows are written behind responses: flush so that a report right after a call includes it.
    await svc.logs.flush();
    return analyticsReport(svc.stores.analytics, req);
  },
});

export const analyticsReportOperations: Operation[] = [getAnalyticsReport];

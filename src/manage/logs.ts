// The request log over the management API: pages of summaries (newest first) with filters, one
// full record, its decision trace, and a replay (log-replay.ts). A project-scoped key reads its own
// project's rows only; anything else is a 404, as if the row did not exist.
import { type Static, Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import { GUARDRAIL_LOG_ACTIONS } from '../guardrails/log-action.ts';
import type { Principal } from '../live/principals.ts';
import type { LogFilters, RequestLogRow } from '../store/request-logs.ts';
import { notFound } from './access.ts';
import { decodeCursor, toPage } from './cursor.ts';
import { replayLogEntry } from './log-replay.ts';
import { LogRecord, LogSummary, logRecord, logSummary } from './log-views.ts';
import { defineOperation, type Operation } from './operation.ts';
import { holderOf, requireRole } from './roles.ts';
import { PageQuery, pageOf } from './schemas.ts';
import type { Services } from './services.ts';

const TAG = 'logs';

/** The filters of the log list, shared with the export route. */
export const LogFilterQuery = {
  start: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601, inclusive' })),
  end: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601, exclusive' })),
  project_id: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(Type.Union([Type.Literal('2xx'), Type.Literal('4xx'), Type.Literal('5xx')])),
  model: Type.Optional(Type.String({ maxLength: 256, description: 'Matches the model asked for or the one used' })),
  provider: Type.Optional(Type.String({ maxLength: 100 })),
  end_user: Type.Optional(Type.String({ maxLength: 256 })),
  tags: Type.Optional(
    Type.String({ maxLength: 2000, description: 'JSON object of tag filters; every pair must match' }),
  ),
  min_latency_ms: Type.Optional(Type.Integer({ minimum: 0 })),
  trace_id: Type.Optional(Type.String({ maxLength: 256 })),
  conversation_id: Type.Optional(Type.String({ maxLength: 256 })),
  request_type: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. chat_completion, message, embedding' })),
  mcp_server: Type.Optional(Type.String({ maxLength: 100, description: 'MCP tool calls to the server of this name' })),
  tool: Type.Optional(
    Type.String({ maxLength: 200, description: 'MCP tool calls of this tool (its own or <server>__<tool> name)' }),
  ),
  guardrail_action: Type.Optional(
    Type.Union(
      GUARDRAIL_LOG_ACTIONS.map((a) => Type.Literal(a)),
      {
        description:
          'Calls whose strongest guardrail verdict was this action (block > mask > flag); shadow_* when only shadow policies had one',
      },
    ),
  ),
};
const FilterQuery = Type.Object(LogFilterQuery);
export type LogFilterInput = Static<typeof FilterQuery>;

export function isoParam(value: string | undefined, param: string): string | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t))
    throw new GatewayError('invalid_parameter', { message: `${param} is not an ISO 8601 time`, param });
  return new Date(t).toISOString();
}

function tagFilter(raw: string | undefined): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    v = undefined;
  }
  const ok =
    typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
  if (!ok)
    throw new GatewayError('invalid_parameter', {
      message: 'tags must be a JSON object of string values, e.g. {"team":"search"}',
      param: 'tags',
    });
  return v as Record<string, string>;
}

/**
 * The store filters for a caller, or null when nothing can match: a project-scoped key is pinned
 * to its project, and asking for another project finds nothing rather than someone else's rows.
 */
export function logFilters(principal: Principal, q: LogFilterInput): LogFilters | null {
  // The export route reads through here without an operation's gate; list_logs needs the same role.
  requireRole(holderOf(principal), 'inference');
  const start = isoParam(q.start, 'start');
  const end = isoParam(q.end, 'end');
  if (start !== undefined && end !== undefined && end < start)
    throw new GatewayError('invalid_parameter', { message: 'end is before start', param: 'end' });
  const tags = tagFilter(q.tags);
  if (principal.projectId !== null && q.project_id !== undefined && q.project_id !== principal.projectId) return null;
  return {
    orgId: principal.orgId,
    projectId: principal.projectId ?? q.project_id,
    start,
    end,
    statusClass: q.status,
    model: q.model,
    provider: q.provider,
    endUser: q.end_user,
    minLatencyMs: q.min_latency_ms,
    tags,
    traceId: q.trace_id,
    conversationId: q.conversation_id,
    requestType: q.request_type,
    mcpServer: q.mcp_server,
    tool: q.tool,
    guardrailAction: q.guardrail_action,
  };
}

/** One row the caller may read, or 404. */
export async function readableLog(svc: Services, principal: Principal, id: string): Promise<RequestLogRow> {
  // Rows are written behind their responses: a read right after a call must still find it.
  await svc.logs.flush();
  const row = await svc.stores.logs.get(principal.orgId, id);
  if (!row || (principal.projectId !== null && row.projectId !== principal.projectId))
    throw notFound('request log', id);
  return row;
}

const RequestIdParams = Type.Object({ request_id: Type.String({ minLength: 1, maxLength: 100 }) });

const listLogs = defineOperation({
  name: 'list_logs',
  method: 'GET',
  role: 'inference',
  path: '/manage/v1/logs',
  tag: TAG,
  summary: 'Request log summaries, newest first (paginated by opaque cursor); project keys see their project only',
  input: { query: Type.Object({ ...LogFilterQuery, ...PageQuery }, { additionalProperties: false }) },
  output: pageOf(LogSummary),
  async handler({ svc, principal, query }) {
    const filters = logFilters(principal, query);
    const limit = query.limit ?? 50;
    const beforeId = decodeCursor(query.cursor);
    if (!filters) return { data: [], next_cursor: null, has_more: false };
    await svc.logs.flush();
    const rows = await svc.stores.logs.list(filters, { beforeId, limit: limit + 1 });
    return toPage(rows, limit, logSummary);
  },
});

const getLog = defineOperation({
  name: 'get_log',
  method: 'GET',
  role: 'inference',
  path: '/manage/v1/logs/{request_id}',
  tag: TAG,
  summary: 'One request in full: bodies (when retained), decision trace, per-attempt metrics, cost breakdown',
  input: { params: RequestIdParams },
  output: LogRecord,
  async handler({ svc, principal, params }) {
    const row = await readableLog(svc, principal, params.request_id);
    const key = row.apiKeyId === null ? undefined : await svc.stores.orgKeys.getKey(principal.orgId, row.apiKeyId);
    return logRecord(row, key, svc.config.traceUrlTemplate, svc.pipeline.live.priceOverride);
  },
});

const getRequestTrace = defineOperation({
  name: 'get_request_trace',
  method: 'GET',
  role: 'inference',
  path: '/manage/v1/logs/{request_id}/trace',
  tag: TAG,
  summary: 'The decision trace of one request: candidates, the rule or variant chosen, every attempt',
  input: { params: RequestIdParams },
  output: Type.Object({ request_id: Type.String(), decision_trace: Type.Unknown() }),
  async handler({ svc, principal, params }) {
    const row = await readableLog(svc, principal, params.request_id);
    return { request_id: row.id, decision_trace: row.decisionTrace ?? null };
  },
});

const replay = defineOperation({
  name: 'replay_log_entry',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/logs/{request_id}/replay',
  tag: TAG,
  summary:
    'Re-run a logged chat or messages request in its own family, through a routing config or a model (dry_run answers the routing decision only); the replay gets its own log row with replay_of',
  errors: [409],
  input: {
    params: RequestIdParams,
    body: Type.Object(
      {
        routing_config: Type.Optional(
          Type.String({ minLength: 1, maxLength: 200, description: 'Slug, with or without @' }),
        ),
        model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
        dry_run: Type.Optional(Type.Boolean({ default: false })),
      },
      { additionalProperties: false },
    ),
  },
  output: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'dry_run: the dry-run envelope; otherwise {request_id, replay_of, response, model_used, provider, status_code, cost_usd, latency_ms}',
    },
  ),
  async handler({ svc, principal, params, body }) {
    const row = await readableLog(svc, principal, params.request_id);
    return (await replayLogEntry(svc, principal, row, body)) as Record<string, unknown>;
  },
});

export const logOperations: Operation[] = [listLogs, getLog, getRequestTrace, replay];

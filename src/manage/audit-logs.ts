// The audit log, read-only: list (with filters), get, and verify the organization's hash chain.
// There is deliberately no write, update or delete operation: entries come only from audited writes.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import type { AuditFilters, AuditRow } from '../store/audit-log.ts';
import { fromJsonText } from '../util/json.ts';
import { notFound, requireOrgKey } from './access.ts';
import { decodeCursor, toPage } from './cursor.ts';
import { isoParam } from './logs.ts';
import { defineOperation, type Operation } from './operation.ts';
import { holderOf, requireRole } from './roles.ts';
import { PageQuery, pageOf } from './schemas.ts';

const TAG = 'audit-logs';
const Json = Type.Unknown({ description: 'JSON value (secrets redacted), or null' });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const AuditEntry = Type.Object({
  id: Type.String(),
  at: Type.String({ description: 'ISO 8601' }),
  actor: Type.Object({
    type: Type.Union([Type.Literal('api_key'), Type.Literal('user'), Type.Literal('system')]),
    id: Type.String(),
    name: Nullable(Type.String()),
  }),
  action: Type.String({ description: '<resource>.<verb>, e.g. routing_config.update' }),
  resource: Type.Object({ type: Type.String(), id: Nullable(Type.String()) }),
  before: Json,
  after: Json,
  request_id: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  seq: Type.Integer({ description: 'Position in the organization chain' }),
  prev_hash: Type.String(),
  hash: Type.String({ description: 'SHA-256 over this entry and prev_hash' }),
});

export function auditView(r: AuditRow): Static<typeof AuditEntry> {
  const type = r.actor_type === 'user' || r.actor_type === 'system' ? r.actor_type : 'api_key';
  return {
    id: r.id,
    at: r.at,
    actor: { type, id: r.actor_id, name: r.actor_name },
    action: r.action,
    resource: { type: r.resource_type, id: r.resource_id },
    before: fromJsonText(r.before) ?? null,
    after: fromJsonText(r.after) ?? null,
    request_id: r.request_id,
    ip: r.ip,
    user_agent: r.user_agent,
    seq: r.seq,
    prev_hash: r.prev_hash,
    hash: r.hash,
  };
}

const Filter = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

export const AuditFilterQuery = {
  actor_id: Filter('API key, user or system id'),
  action: Filter('e.g. routing_config.update'),
  resource_type: Filter('e.g. routing_config'),
  resource_id: Filter('The resource id'),
  start: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601, inclusive' })),
  end: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601, exclusive' })),
};

export interface AuditFilterInput {
  actor_id?: string;
  action?: string;
  resource_type?: string;
  resource_id?: string;
  start?: string;
  end?: string;
}

export function auditFilters(principal: Principal, q: AuditFilterInput): AuditFilters {
  // The export route reads through here without an operation's gate; list_audit_logs needs the same role.
  requireRole(holderOf(principal), 'viewer');
  const orgId = requireOrgKey(principal);
  const start = isoParam(q.start, 'start');
  const end = isoParam(q.end, 'end');
  if (start !== undefined && end !== undefined && end < start)
    throw new GatewayError('invalid_parameter', { message: 'end is before start', param: 'end' });
  return {
    orgId,
    actorId: q.actor_id,
    action: q.action,
    resourceType: q.resource_type,
    resourceId: q.resource_id,
    start,
    end,
  };
}

const listAuditLogs = defineOperation({
  name: 'list_audit_logs',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/audit-logs',
  tag: TAG,
  summary: 'List audit log entries (management writes), newest first',
  input: { query: Type.Object({ ...AuditFilterQuery, ...PageQuery }, { additionalProperties: false }) },
  output: pageOf(AuditEntry),
  async handler({ svc, principal, query }) {
    const filters = auditFilters(principal, query);
    const limit = query.limit ?? 50;
    const rows = await svc.stores.auditLog.list(filters, { beforeId: decodeCursor(query.cursor), limit: limit + 1 });
    return toPage(rows, limit, auditView);
  },
});

const verifyAuditLog = defineOperation({
  name: 'verify_audit_log',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/audit-logs/verify',
  tag: TAG,
  summary: "Walk the organization's audit hash chain; names the first entry that does not match",
  input: {},
  output: Type.Object({
    ok: Type.Boolean(),
    checked: Type.Integer({ description: 'Entries checked' }),
    first_bad_id: Nullable(Type.String({ description: 'The first entry edited, or after a deletion' })),
  }),
  async handler({ svc, principal }) {
    return svc.stores.auditLog.verify(requireOrgKey(principal));
  },
});

const getAuditLog = defineOperation({
  name: 'get_audit_log',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/audit-logs/{audit_log_id}',
  tag: TAG,
  summary: 'Get one audit log entry',
  input: { params: Type.Object({ audit_log_id: Type.String({ minLength: 1, maxLength: 100 }) }) },
  output: AuditEntry,
  async handler({ svc, principal, params }) {
    const r = await svc.stores.auditLog.get(requireOrgKey(principal), params.audit_log_id);
    if (!r) throw notFound('audit log entry', params.audit_log_id);
    return auditView(r);
  },
});

export const auditLogOperations: Operation[] = [listAuditLogs, verifyAuditLog, getAuditLog];

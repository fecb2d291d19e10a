// The one place management writes are audited: REST and MCP both run operations through
// `runOperation`. What an entry says is derived from the operation list itself, so a new write
// operation is audited without touching this file: the resource is the one read by the GET
// operation at the shortest `{param}`-ending prefix of the write's path (or, for a create, at
// `<path>/{id}`), `before` and `after` are that GET's answer around the write, and the action is
// `<resource>.<first word of the operation name>` (`update_routing_config` -> `routing_config.update`).
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import type { AuditActor, AuditRow } from '../store/audit-log.ts';
import type { Stores } from '../store/index.ts';
import { isRecord } from '../util/json.ts';
import { refuseConfigManaged, withManagedBy } from './config-managed.ts';
import type { ErasedContext, Operation } from './operation.ts';
import { requireOperationRole } from './roles.ts';
import type { Services } from './services.ts';

/** Where a management call came from, as the transport saw it. */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
  /** Set by doors that act for the system rather than a key or a user (the configuration file). */
  actor?: AuditActor;
}

interface AuditTarget {
  resourceType: string;
  verb: string;
  /** The path parameter that names the resource, when the write's path has one. */
  idParam: string | undefined;
  load: ((ctx: ErasedContext, id: string) => Promise<unknown>) | undefined;
}

const REDACTED = '[redacted]';
/** Field names whose values are secrets (plaintext keys, signing secrets, hashes and ciphertexts of them). */
const SECRET_FIELD =
  /^(key|api_key|apikey|secret|password|token|authorization)$|_(secret|ciphertext|hash|token)$|^secret_/i;
/** Values shaped like credentials, wherever they sit (a config's header, a free-text field). */
// Long enough to be a whole key: a key's 10-character display prefix (`sy-abc1234`) stays readable.
const SECRET_VALUE = /^(sk-|sk_|whsec_|sy-|sy_|Bearer\s)\S{16,}/;

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value;
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_FIELD.test(k) && v !== null && v !== undefined ? REDACTED : redact(v);
  }
  return out;
}

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const snakeKeys = (o: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [snake(k), v]));

/**
 * Resources written by operations that have no GET of their own: their store record stands in
 * (secrets are redacted like everywhere else).
 */
const RECORD_LOADERS: Record<string, (ctx: ErasedContext, id: string) => Promise<unknown>> = {
  api_key: async ({ svc, principal }, id) => {
    const k = await svc.stores.orgKeys.getKey(principal.orgId, id);
    return k ? snakeKeys(k) : null;
  },
};

const paramOf = (segment: string | undefined) => /^\{(.+)\}$/.exec(segment ?? '')?.[1];

function viaGet(get: Operation, idParam: string): AuditTarget['load'] {
  return (ctx, id) => get.handler({ ...ctx, params: { [idParam]: id }, query: {}, body: {} });
}

function resolveTarget(operations: readonly Operation[], op: Operation): AuditTarget {
  const verb = op.name.split('_')[0] ?? op.name;
  const gets = new Map(operations.filter((o) => o.method === 'GET').map((o) => [o.path, o]));
  const segments = op.path.split('/');
  for (let i = 4; i <= segments.length; i++) {
    const prefix = segments.slice(0, i).join('/');
    const idParam = paramOf(segments[i - 1]);
    const get = gets.get(prefix);
    if (idParam && get)
      return { resourceType: get.name.replace(/^get_/, ''), verb, idParam, load: viaGet(get, idParam) };
  }
  if (op.method === 'POST') {
    for (const get of gets.values()) {
      const idParam = paramOf(get.path.slice(op.path.length + 1));
      if (get.path.startsWith(`${op.path}/`) && idParam) {
        return { resourceType: get.name.replace(/^get_/, ''), verb, idParam: undefined, load: viaGet(get, idParam) };
      }
    }
  }
  const resourceType = op.name.slice(verb.length + 1) || op.name;
  const idParam = [...segments]
    .reverse()
    .map(paramOf)
    .find((p) => p !== undefined);
  return { resourceType, verb, idParam, load: RECORD_LOADERS[resourceType] };
}

const targets = new WeakMap<readonly Operation[], Map<string, AuditTarget>>();

function targetFor(operations: readonly Operation[], op: Operation): AuditTarget {
  let byName = targets.get(operations);
  if (!byName) {
    byName = new Map();
    targets.set(operations, byName);
  }
  let t = byName.get(op.name);
  if (!t) {
    t = resolveTarget(operations, op);
    byName.set(op.name, t);
  }
  return t;
}

/** What an operation's entries are recorded as; GET operations are not audited (undefined). */
export function auditActionOf(operations: readonly Operation[], op: Operation): string | undefined {
  if (op.method === 'GET') return undefined;
  const t = targetFor(operations, op);
  return `${t.resourceType}.${t.verb}`;
}

/** A resource that is gone (deleted, or not yet created) reads as null rather than failing the write. */
async function snapshot(target: AuditTarget, ctx: ErasedContext, id: string | undefined): Promise<unknown> {
  if (!target.load || id === undefined) return null;
  try {
    return (await target.load(ctx, id)) ?? null;
  } catch (err) {
    if (err instanceof GatewayError && err.status === 404) return null;
    throw err;
  }
}

/**
 * Verbs that act through a resource without changing it (a test call, a test event, a replay): the
 * entry names the resource but keeps no snapshot, which for a log would copy its prompt bodies here.
 */
const NO_SNAPSHOT_VERBS = new Set(['test', 'send', 'replay']);

const jsonOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(redact(v)));

async function actorOf(stores: Stores, principal: Principal): Promise<AuditActor> {
  if (principal.user) return { type: 'user', id: principal.user.id, name: principal.user.name ?? principal.user.email };
  const key = await stores.orgKeys.getKey(principal.orgId, principal.keyId);
  return { type: 'api_key', id: principal.keyId, name: key?.name ?? null };
}

const lastSweep = new WeakMap<Stores, number>();
const HOUR_MS = 3_600_000;

/**
 * Retention runs beside appends, so no extra timer or job is needed: at most hourly per process (or
 * every tenth of the retention when that is shorter), so an entry outlives it by little.
 */
function maybeSweep(svc: Services): void {
  const days = svc.config.auditRetentionDays;
  if (days === null) return;
  const keepMs = days * 86_400_000;
  const now = Date.now();
  if (now - (lastSweep.get(svc.stores) ?? 0) < Math.min(HOUR_MS, keepMs / 10)) return;
  lastSweep.set(svc.stores, now);
  const cutoff = new Date(now - keepMs).toISOString();
  svc.stores.auditLog.sweep(cutoff).catch((err: unknown) => svc.logger.error({ err }, 'audit log retention failed'));
}

export interface AuditRecord {
  orgId: string;
  actor: AuditActor;
  action: string;
  resourceType: string;
  resourceId: string | null;
  before: unknown;
  after: unknown;
  requestId: string | null;
  origin: RequestOrigin;
}

/** Appends one entry; doors that write without an operation (the CLI) call this directly. */
export function recordAudit(stores: Stores, r: AuditRecord): Promise<AuditRow> {
  return stores.auditLog.append({
    orgId: r.orgId,
    actor: r.actor,
    action: r.action,
    resourceType: r.resourceType,
    resourceId: r.resourceId,
    before: jsonOrNull(r.before),
    after: jsonOrNull(r.after),
    requestId: r.requestId,
    ip: r.origin.ip,
    userAgent: r.origin.userAgent,
  });
}

/** Runs an operation; a write that succeeds is audited. */
export async function runOperation(
  operations: readonly Operation[],
  op: Operation,
  ctx: ErasedContext,
  origin: RequestOrigin,
): Promise<unknown> {
  // Every door (REST, MCP over HTTP or stdio) runs operations through here, so the role gate sits
  // here too; a refused call changed nothing, so it is not audited.
  requireOperationRole(op, ctx.principal);
  if (op.method === 'GET') return withManagedBy(ctx.svc.db, ctx.principal.orgId, await op.handler(ctx));
  const target = targetFor(operations, op);
  const snapshots = !NO_SNAPSHOT_VERBS.has(target.verb);
  const params = isRecord(ctx.params) ? ctx.params : {};
  const givenId = target.idParam !== undefined ? params[target.idParam] : undefined;
  const { svc, principal } = ctx;
  // Acting through a resource (a test call, a test event) leaves what the file declares as it is.
  if (snapshots) {
    const id = typeof givenId === 'string' ? givenId : undefined;
    await refuseConfigManaged(svc.db, principal.orgId, op.name, target.resourceType, id, origin.actor);
  }
  const before = snapshots ? await snapshot(target, ctx, typeof givenId === 'string' ? givenId : undefined) : null;
  const result = await op.handler(ctx);
  const createdId = isRecord(result) && typeof result.id === 'string' ? result.id : undefined;
  const id = typeof givenId === 'string' ? givenId : createdId;
  // Without a way to read the resource, the operation's own answer is the best "after" there is.
  const after = !snapshots ? null : target.load ? await snapshot(target, ctx, id) : result;
  try {
    await recordAudit(svc.stores, {
      orgId: principal.orgId,
      actor: origin.actor ?? (await actorOf(svc.stores, principal)),
      action: `${target.resourceType}.${target.verb}`,
      resourceType: target.resourceType,
      resourceId: id ?? null,
      before,
      after,
      requestId: ctx.requestId,
      origin,
    });
    maybeSweep(svc);
  } catch (err) {
    // The write itself is committed: failing the call now would invite a retry that repeats it.
    svc.logger.error({ err, operation: op.name }, 'audit log append failed');
  }
  return withManagedBy(svc.db, principal.orgId, result);
}

/** The CLI writes the store directly (no operation runs), so it records its own entries as `system`/`cli`. */
export function recordCliAudit(
  stores: Stores,
  orgId: string,
  change: { action: string; resourceType: string; resourceId: string; before: object | null; after: object | null },
): Promise<AuditRow> {
  return recordAudit(stores, {
    orgId,
    actor: { type: 'system', id: 'cli', name: 'switchyard CLI' },
    action: change.action,
    resourceType: change.resourceType,
    resourceId: change.resourceId,
    before: change.before && snakeKeys(change.before),
    after: change.after && snakeKeys(change.after),
    requestId: null,
    origin: { ip: null, userAgent: `switchyard-cli/${process.pid}` },
  });
}

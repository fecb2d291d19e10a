// How the configuration file acts on the store: through the management operations themselves (same
// validation, same config versions, same events), audited as the system actor `config`, which is
// also the one writer the managed_by_config refusal lets through.
import type { Principal } from '../live/principals.ts';
import { type RequestOrigin, runOperation } from '../manage/audit.ts';
import { CONFIG_ACTOR } from '../manage/config-managed.ts';
import { OPERATIONS } from '../manage/operations.ts';
import type { Services } from '../manage/services.ts';
import { newId } from '../util/ids.ts';
import { isRecord } from '../util/json.ts';

export interface ApplyContext {
  svc: Services;
  orgId: string;
  principal: Principal;
  origin: RequestOrigin;
  /** name or slug -> id, per kind; filled as resources are read and created. */
  ids: Map<string, Map<string, string>>;
}

export function applyContext(svc: Services, orgId: string, file: string): ApplyContext {
  const principal: Principal = { orgId, projectId: null, keyId: CONFIG_ACTOR.id, role: 'admin', rateLimits: null };
  return {
    svc,
    orgId,
    principal,
    origin: { ip: null, userAgent: `switchyard-config (${file})`, actor: CONFIG_ACTOR },
    ids: new Map(),
  };
}

interface CallInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
}

/** Runs one management operation by its tool name, as the file. */
export async function call(ctx: ApplyContext, name: string, input: CallInput = {}): Promise<Record<string, unknown>> {
  const op = OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`no management operation '${name}'`);
  const result = await runOperation(
    OPERATIONS,
    op,
    {
      svc: ctx.svc,
      principal: ctx.principal,
      requestId: newId('req'),
      params: input.params ?? {},
      query: input.query ?? {},
      body: input.body ?? {},
    },
    ctx.origin,
  );
  return isRecord(result) ? result : {};
}

/** Every item of a paginated list operation. */
export async function listAll(
  ctx: ApplyContext,
  name: string,
  query: Record<string, unknown> = {},
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await call(ctx, name, { query: { ...query, limit: 200, ...(cursor ? { cursor } : {}) } });
    const data = Array.isArray(page.data) ? page.data.filter(isRecord) : [];
    out.push(...data);
    if (page.has_more !== true || typeof page.next_cursor !== 'string') return out;
    cursor = page.next_cursor;
  }
}

export function remember(ctx: ApplyContext, kind: string, name: string, id: string): void {
  let m = ctx.ids.get(kind);
  if (!m) {
    m = new Map();
    ctx.ids.set(kind, m);
  }
  m.set(name, id);
}

export function idOf(ctx: ApplyContext, kind: string, name: string, field: string): string {
  const id = ctx.ids.get(kind)?.get(name);
  if (id === undefined) throw new Error(`${field}: no ${kind.replace('_', ' ')} named '${name}'`);
  return id;
}

/** The reverse look-up, for export and for comparing stored references with the file's names. */
export function nameOf(ctx: ApplyContext, kind: string, id: string | null | undefined): string | null {
  if (id === null || id === undefined) return null;
  for (const [name, v] of ctx.ids.get(kind) ?? []) if (v === id) return name;
  return id;
}

// plan: what applying the file would create, change and delete, compared in the file's own terms;
// apply: exactly those changes, in dependency order (creates and updates first, deletes last and
// in reverse), each through a management operation and marked as owned by the file.
import { listManaged, markManaged, unmarkManaged } from '../manage/config-managed.ts';
import { type ModelSettingChange, readModelSettings } from '../manage/models-settings.ts';
import type { Services } from '../manage/services.ts';
import { checkDeclarations } from './check.ts';
import { type ApplyContext, applyContext } from './context.ts';
import { type Decl, diffJson, type Existing, type FieldChange, type Kind, topField } from './kind.ts';
import { apiKeys, projects, providers } from './kinds-access.ts';
import { guardrails } from './kinds-guardrails.ts';
import { budgets, routingConfigs, webhooks } from './kinds-routing.ts';
import { applyModels, planModels } from './models.ts';
import { ConfigFileError, fieldName, type ParsedConfig } from './parse.ts';
import type { ConfigFile } from './schema.ts';

/** Dependency order: a kind may name only kinds before it. */
export const KINDS: readonly Kind[] = [providers, projects, apiKeys, routingConfigs, budgets, webhooks, guardrails];

export interface Change {
  action: 'create' | 'update' | 'replace' | 'delete';
  kind: Kind;
  key: string;
  id: string | null;
  decl: Decl | null;
  fields: FieldChange[];
}

export interface Plan {
  changes: Change[];
  /** Declared resources that exist unchanged (still marked as the file's). */
  unchanged: { kind: Kind; key: string; id: string }[];
  /** Model aliases and price overrides the `models` section changes. */
  models: ModelSettingChange[];
  ctx: ApplyContext;
  parsed: ParsedConfig;
}

function declsOf(config: ConfigFile, kind: Kind): Decl[] {
  const list = config[kind.section];
  return Array.isArray(list) ? (list as Decl[]) : [];
}

export async function readState(
  svc: Services,
  orgId: string,
  file: string,
): Promise<{ ctx: ApplyContext; state: Map<Kind, Existing[]> }> {
  const ctx = applyContext(svc, orgId, file);
  const state = new Map<Kind, Existing[]>();
  // In order, so names of earlier kinds are known when later ones are translated.
  for (const kind of KINDS) state.set(kind, await kind.read(ctx));
  return { ctx, state };
}

export async function makePlan(svc: Services, orgId: string, parsed: ParsedConfig): Promise<Plan> {
  const { ctx, state } = await readState(svc, orgId, parsed.file);
  checkDeclarations(parsed, ctx);
  const managed = new Set((await listManaged(svc.db, orgId)).map((m) => `${m.resourceType}\0${m.resourceId}`));
  const changes: Change[] = [];
  const deletes: Change[] = [];
  const unchanged: Plan['unchanged'] = [];
  for (const kind of KINDS) {
    const existing = new Map((state.get(kind) ?? []).map((e) => [String(e.decl[kind.keyField]), e]));
    const declared = declsOf(parsed.config, kind);
    const seen = new Set<string>();
    declared.forEach((d, i) => {
      const key = String(d[kind.keyField]);
      if (seen.has(key)) {
        const path = [kind.section, i, kind.keyField];
        throw new ConfigFileError(parsed.file, parsed.lineOf(path), fieldName(path), `'${key}' is declared twice`);
      }
      seen.add(key);
      const cur = existing.get(key);
      const want = kind.normal(d);
      if (!cur) {
        changes.push({ action: 'create', kind, key, id: null, decl: d, fields: diffJson({}, want) });
        return;
      }
      const have = kind.normal(cur.decl);
      const fields = diffJson(kind.align ? kind.align(have, want) : have, want);
      if (fields.length === 0) {
        unchanged.push({ kind, key, id: cur.id });
        return;
      }
      const replace = fields.some((f) => kind.replaceFields?.includes(topField(f.field)));
      changes.push({ action: replace ? 'replace' : 'update', kind, key, id: cur.id, decl: d, fields });
    });
    if (parsed.config.prune === true && parsed.config[kind.section] !== undefined) {
      for (const [key, e] of existing) {
        if (seen.has(key)) continue;
        const isManaged = managed.has(`${kind.type}\0${e.id}`);
        if (kind.prunable && !kind.prunable(e, isManaged)) continue;
        deletes.push({ action: 'delete', kind, key, id: e.id, decl: null, fields: [] });
      }
    }
  }
  const models = await planModels(ctx, parsed);
  return { changes: [...changes, ...deletes.reverse()], unchanged, models, ctx, parsed };
}

const SIGN = { create: '+', update: '~', replace: '-/+', delete: '-' } as const;

function shown(kind: Kind, f: FieldChange, v: unknown): string {
  if (kind.secretFields?.includes(topField(f.field))) return v === null ? 'null' : '(secret)';
  return JSON.stringify(v);
}

/** How many changes applying the plan makes. */
export const planSize = (plan: Plan): number => plan.changes.length + plan.models.length;

/** The readable diff `config plan` prints. */
export function renderPlan(plan: Plan): string {
  const lines: string[] = [];
  for (const c of plan.changes) {
    lines.push(`${SIGN[c.action]} ${c.kind.type} ${c.key} (${c.action})`);
    for (const f of c.fields) {
      lines.push(
        c.action === 'create'
          ? `    ${f.field}: ${shown(c.kind, f, f.to)}`
          : `    ${f.field}: ${shown(c.kind, f, f.from)} -> ${shown(c.kind, f, f.to)}`,
      );
    }
  }
  for (const m of plan.models) {
    const type = m.kind === 'alias' ? 'model_alias' : 'model_price';
    const sign = m.action === 'create' ? '+' : m.action === 'update' ? '~' : '-';
    lines.push(`${sign} ${type} ${m.name} (${m.action})`);
    if (m.action !== 'delete') lines.push(`    ${JSON.stringify(m.before)} -> ${JSON.stringify(m.after)}`);
  }
  const count = (a: Change['action']) =>
    plan.changes.filter((c) => c.action === a).length + plan.models.filter((m) => m.action === a).length;
  lines.push(
    planSize(plan) === 0
      ? 'No changes: the store matches the file.'
      : `Plan: ${count('create')} to create, ${count('update')} to change, ${count('replace')} to replace, ${count('delete')} to delete.`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * Makes the plan's changes; the first refusal stops it and names the resource (rollback.ts undoes
 * what was made before it). `mark: false` leaves the file's markers alone (a rollback restores them).
 */
export async function applyChanges(plan: Plan, opts: { mark?: boolean } = {}): Promise<void> {
  const { ctx } = plan;
  const { db } = ctx.svc;
  const mark = opts.mark !== false;
  if (mark)
    for (const u of plan.unchanged)
      await markManaged(db, ctx.orgId, { resourceType: u.kind.type, resourceId: u.id, name: u.key });
  for (const c of plan.changes) {
    try {
      if (c.action === 'delete' && c.id !== null) {
        await c.kind.remove(ctx, c.id);
        await unmarkManaged(db, ctx.orgId, c.kind.type, c.id);
        continue;
      }
      if (c.decl === null) continue;
      let id = c.id;
      if (c.action === 'replace' && id !== null) {
        await c.kind.remove(ctx, id);
        await unmarkManaged(db, ctx.orgId, c.kind.type, id);
        id = null;
      }
      if (id === null) id = await c.kind.create(ctx, c.decl);
      else await c.kind.update(ctx, id, c.decl, [...new Set(c.fields.map((f) => topField(f.field)))]);
      ctx.ids.get(c.kind.type)?.set(c.key, id) ?? ctx.ids.set(c.kind.type, new Map([[c.key, id]]));
      if (mark) await markManaged(db, ctx.orgId, { resourceType: c.kind.type, resourceId: id, name: c.key });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(`${c.kind.section} '${c.key}' (${c.action}): ${why}`);
    }
  }
  await applyModels(ctx, plan.parsed, plan.models, mark);
}

/**
 * The current state as a file that plans to no change (provider keys become ${env:...} references,
 * or stay inline with `inline`, for a snapshot that never leaves the process).
 */
export async function exportState(
  svc: Services,
  orgId: string,
  opts: { inline?: boolean } = {},
): Promise<{ config: ConfigFile; env: Record<string, string> }> {
  const { state } = await readState(svc, orgId, 'export');
  const out: Record<string, unknown> = { version: 1 };
  const env: Record<string, string> = {};
  for (const kind of KINDS) {
    const items = (state.get(kind) ?? []).map((e) => {
      const d = { ...e.decl };
      for (const k of Object.keys(d)) if (d[k] === null) delete d[k];
      if (kind === providers && opts.inline !== true) {
        const name = `SWITCHYARD_PROVIDER_KEY_${String(d.name)
          .toUpperCase()
          .replace(/[^A-Z0-9]/g, '_')}`;
        if (typeof d.api_key === 'string') env[name] = d.api_key;
        d.api_key = `\${env:${name}}`;
      }
      return d;
    });
    if (items.length > 0) out[kind.section] = items;
  }
  const models = await readModelSettings(svc, orgId);
  const section: Record<string, unknown> = {};
  if (Object.keys(models.aliases).length > 0) section.aliases = models.aliases;
  if (Object.keys(models.prices).length > 0) section.prices = models.prices;
  if (Object.keys(section).length > 0) out.models = section;
  return { config: out as ConfigFile, env };
}

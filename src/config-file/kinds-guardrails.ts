// Guardrail policies as the file declares them: the scope names its project, API key or routing
// config by slug or name; the checks are the API's, judged by the guardrails operations.
import { isRecord } from '../util/json.ts';
import { type ApplyContext, call, idOf, listAll, nameOf, remember } from './context.ts';
import { type Decl, type Kind, orNull } from './kind.ts';

const SCOPE_KINDS: Record<string, string> = {
  project: 'project',
  api_key: 'api_key',
  routing_config: 'routing_config',
};

function scopeToApi(ctx: ApplyContext, s: unknown): Decl {
  if (!isRecord(s) || s.type === 'org') return { type: 'org' };
  const kind = SCOPE_KINDS[String(s.type)];
  if (kind === undefined || typeof s.name !== 'string') return { type: s.type };
  return { type: s.type, id: idOf(ctx, kind, s.name, 'guardrails.scope.name') };
}

function scopeToFile(ctx: ApplyContext, s: unknown): Decl {
  if (!isRecord(s) || s.type === 'org') return { type: 'org' };
  const kind = SCOPE_KINDS[String(s.type)];
  const id = typeof s.id === 'string' ? s.id : null;
  return kind === undefined || id === null ? { type: s.type } : { type: s.type, name: nameOf(ctx, kind, id) };
}

export const guardrails: Kind = {
  section: 'guardrails',
  type: 'guardrail',
  keyField: 'name',
  async read(ctx) {
    const rows = await listAll(ctx, 'list_guardrails');
    return rows.map((g) => {
      const id = String(g.id);
      remember(ctx, 'guardrail', String(g.name), id);
      return { id, decl: { name: g.name, scope: scopeToFile(ctx, g.scope), mode: g.mode, checks: g.checks } };
    });
  },
  normal: (d) => ({
    name: d.name,
    scope: isRecord(d.scope) && d.scope.type !== 'org' ? d.scope : { type: 'org' },
    mode: d.mode ?? 'enforce',
    checks: orNull(d.checks),
  }),
  async create(ctx, d) {
    const n = guardrails.normal(d);
    const g = await call(ctx, 'create_guardrail', {
      body: { name: n.name, scope: scopeToApi(ctx, n.scope), mode: n.mode, checks: n.checks },
    });
    return String(g.id);
  },
  async update(ctx, id, d, changed) {
    const n = guardrails.normal(d);
    const body: Decl = {};
    for (const f of changed) body[f] = f === 'scope' ? scopeToApi(ctx, n.scope) : n[f];
    await call(ctx, 'update_guardrail', { params: { guardrail_id: id }, body });
  },
  async remove(ctx, id) {
    await call(ctx, 'delete_guardrail', { params: { guardrail_id: id } });
  },
};

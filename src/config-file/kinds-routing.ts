// Routing configs, budgets and webhook endpoints as the file declares them.
import { isRecord } from '../util/json.ts';
import { type ApplyContext, call, idOf, listAll, nameOf, remember } from './context.ts';
import { type Decl, type Kind, orNull } from './kind.ts';

/**
 * Candidates name credentials by id in the API and by provider name in the file
 * (`provider_credential: <name>`): one walk turns either into the other.
 */
function mapCredentials(v: unknown, to: 'ids' | 'names', ctx: ApplyContext): unknown {
  if (Array.isArray(v)) return v.map((x) => mapCredentials(x, to, ctx));
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (to === 'ids' && k === 'provider_credential' && typeof x === 'string') {
      out.provider_credential_id = idOf(ctx, 'provider', x, 'routing_configs.config.provider_credential');
    } else if (to === 'names' && k === 'provider_credential_id' && typeof x === 'string') {
      out.provider_credential = nameOf(ctx, 'provider', x);
    } else out[k] = mapCredentials(x, to, ctx);
  }
  return out;
}

const projectId = (ctx: ApplyContext, d: Decl): string | null =>
  d.project === null || d.project === undefined ? null : idOf(ctx, 'project', String(d.project), 'project');

export const routingConfigs: Kind = {
  section: 'routing_configs',
  type: 'routing_config',
  keyField: 'slug',
  replaceFields: ['project'],
  async read(ctx) {
    const rows = await listAll(ctx, 'list_routing_configs');
    return rows.map((c) => {
      const id = String(c.id);
      remember(ctx, 'routing_config', String(c.slug), id);
      return {
        id,
        decl: {
          slug: c.slug,
          name: c.name,
          project: nameOf(ctx, 'project', c.project_id as string | null),
          strategy: c.strategy,
          config: mapCredentials(c.config, 'names', ctx),
          embedding_dimensions: c.embedding_dimensions,
        },
      };
    });
  },
  normal: (d) => ({
    slug: d.slug,
    name: d.name ?? d.slug,
    project: orNull(d.project),
    strategy: d.strategy,
    config: d.config ?? {},
    embedding_dimensions: orNull(d.embedding_dimensions),
  }),
  async create(ctx, d) {
    const n = routingConfigs.normal(d);
    const c = await call(ctx, 'create_routing_config', {
      body: {
        slug: n.slug,
        name: n.name,
        project_id: projectId(ctx, n),
        strategy: n.strategy,
        config: mapCredentials(n.config, 'ids', ctx),
        embedding_dimensions: n.embedding_dimensions,
      },
    });
    return String(c.id);
  },
  // One PATCH whatever changed: one new version.
  async update(ctx, id, d) {
    const n = routingConfigs.normal(d);
    await call(ctx, 'update_routing_config', {
      params: { config_id: id },
      body: {
        name: n.name,
        strategy: n.strategy,
        config: mapCredentials(n.config, 'ids', ctx),
        embedding_dimensions: n.embedding_dimensions,
      },
    });
  },
  async remove(ctx, id) {
    await call(ctx, 'delete_routing_config', { params: { config_id: id } });
  },
};

const DEFAULT_THRESHOLDS = [0.5, 0.8, 1];

function scopeToFile(ctx: ApplyContext, s: unknown): Decl {
  if (!isRecord(s)) return { type: 'org' };
  const out: Decl = { type: s.type };
  if (s.type === 'project' && typeof s.id === 'string') out.project = nameOf(ctx, 'project', s.id);
  else if (s.type === 'api_key' && typeof s.id === 'string') out.api_key = nameOf(ctx, 'api_key', s.id);
  else if (typeof s.id === 'string') out.id = s.id;
  if (typeof s.value === 'string') out.value = s.value;
  return out;
}

function scopeToApi(ctx: ApplyContext, s: Decl): Decl {
  const out: Decl = { type: s.type };
  if (typeof s.project === 'string') out.id = idOf(ctx, 'project', s.project, 'budgets.scope.project');
  else if (typeof s.api_key === 'string') out.id = idOf(ctx, 'api_key', s.api_key, 'budgets.scope.api_key');
  else if (typeof s.id === 'string') out.id = s.id;
  if (typeof s.value === 'string') out.value = s.value;
  return out;
}

export const budgets: Kind = {
  section: 'budgets',
  type: 'budget',
  keyField: 'name',
  replaceFields: ['scope', 'period'],
  async read(ctx) {
    const rows = await listAll(ctx, 'list_budgets');
    return rows.map((b) => {
      const id = String(b.id);
      remember(ctx, 'budget', String(b.name), id);
      return {
        id,
        decl: {
          name: b.name,
          scope: scopeToFile(ctx, b.scope),
          period: b.period,
          limit_usd: b.limit_usd,
          thresholds: b.thresholds,
          action: b.action,
          models: b.models,
        },
      };
    });
  },
  normal: (d) => ({
    name: d.name,
    scope: d.scope,
    period: d.period,
    limit_usd: d.limit_usd,
    thresholds: Array.isArray(d.thresholds)
      ? [...new Set(d.thresholds as number[])].sort((a, b) => a - b)
      : DEFAULT_THRESHOLDS,
    action: d.action ?? 'block',
    models: orNull(d.models),
  }),
  async create(ctx, d) {
    const n = budgets.normal(d);
    const b = await call(ctx, 'create_budget', {
      body: { ...n, scope: scopeToApi(ctx, n.scope as Decl) },
    });
    return String(b.id);
  },
  async update(ctx, id, d, changed) {
    const n = budgets.normal(d);
    const body: Decl = {};
    for (const f of changed) body[f] = n[f];
    await call(ctx, 'update_budget', { params: { budget_id: id }, body });
  },
  async remove(ctx, id) {
    await call(ctx, 'delete_budget', { params: { budget_id: id } });
  },
};

export const webhooks: Kind = {
  section: 'webhooks',
  type: 'webhook_endpoint',
  keyField: 'url',
  async read(ctx) {
    const rows = await listAll(ctx, 'list_webhook_endpoints');
    return rows.map((e) => {
      const id = String(e.id);
      remember(ctx, 'webhook_endpoint', String(e.url), id);
      return {
        id,
        decl: { url: e.url, event_types: e.event_types, description: e.description, active: e.active },
      };
    });
  },
  normal: (d) => ({
    url: d.url,
    event_types: d.event_types ?? ['*'],
    description: orNull(d.description),
    active: d.active ?? true,
  }),
  async create(ctx, d) {
    const n = webhooks.normal(d);
    const e = await call(ctx, 'create_webhook_endpoint', {
      body: { url: n.url, event_types: n.event_types, description: n.description },
    });
    const id = String(e.id);
    if (n.active === false)
      await call(ctx, 'update_webhook_endpoint', { params: { endpoint_id: id }, body: { active: false } });
    return id;
  },
  async update(ctx, id, d, changed) {
    const n = webhooks.normal(d);
    const body: Decl = {};
    for (const f of changed) if (f !== 'url') body[f] = n[f];
    await call(ctx, 'update_webhook_endpoint', { params: { endpoint_id: id }, body });
  },
  async remove(ctx, id) {
    await call(ctx, 'delete_webhook_endpoint', { params: { endpoint_id: id } });
  },
};

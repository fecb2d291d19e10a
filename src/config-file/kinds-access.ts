// Providers, projects and API keys as the file declares them.
import { displayPrefix, hashApiKey } from '../crypto/api-keys.ts';
import { recordAudit } from '../manage/audit.ts';
import { CONFIG_ACTOR } from '../manage/config-managed.ts';
import { defaultKeyRole, isRole } from '../ports/roles.ts';
import { newId } from '../util/ids.ts';
import { isRecord } from '../util/json.ts';
import { type ApplyContext, call, idOf, listAll, nameOf, remember } from './context.ts';
import { type Decl, type Existing, type Kind, orNull, picked } from './kind.ts';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export const providers: Kind = {
  section: 'providers',
  type: 'provider',
  keyField: 'name',
  secretFields: ['api_key'],
  replaceFields: ['vendor'],
  async read(ctx) {
    const rows = await listAll(ctx, 'list_providers');
    return rows.map((p) => {
      const id = String(p.id);
      remember(ctx, 'provider', String(p.name), id);
      const cred = ctx.svc.credentials.get(ctx.orgId, id);
      return {
        id,
        decl: {
          name: p.name,
          vendor: p.vendor,
          api_key: cred?.credential.apiKey ?? null,
          base_url: p.base_url,
          weight: p.weight,
        },
      };
    });
  },
  normal: (d) => ({
    name: d.name,
    vendor: d.vendor,
    api_key: d.api_key,
    base_url: orNull(d.base_url),
    weight: d.weight ?? 1,
  }),
  async create(ctx, d) {
    const body = { vendor: d.vendor, name: d.name, api_key: d.api_key, base_url: orNull(d.base_url), weight: d.weight };
    const p = await call(ctx, 'add_provider', { body: { ...body, ...(d.verify === false ? { verify: false } : {}) } });
    return String(p.id);
  },
  async update(ctx, id, d, changed) {
    const body: Decl = {};
    for (const f of changed) if (f !== 'name' && f !== 'vendor') body[f] = d[f] ?? (f === 'weight' ? 1 : null);
    await call(ctx, 'update_provider', { params: { provider_id: id }, body });
  },
  async remove(ctx, id) {
    await call(ctx, 'delete_provider', { params: { provider_id: id }, query: { force: true } });
  },
};

export const projects: Kind = {
  section: 'projects',
  type: 'project',
  keyField: 'slug',
  async read(ctx) {
    const rows = await listAll(ctx, 'list_projects');
    return rows.map((p) => {
      const id = String(p.id);
      remember(ctx, 'project', String(p.slug), id);
      const s = isRecord(p.settings) ? p.settings : {};
      const settings: Decl = { log_bodies: s.log_bodies };
      if (s.rate_limits !== null && s.rate_limits !== undefined) settings.rate_limits = s.rate_limits;
      if (s.end_user_rate_limits !== null && s.end_user_rate_limits !== undefined)
        settings.end_user_rate_limits = s.end_user_rate_limits;
      if (isRecord(s.semantic_cache) && s.semantic_cache.enabled === true) settings.semantic_cache = s.semantic_cache;
      return { id, decl: { slug: p.slug, name: p.name, description: p.description, settings } };
    });
  },
  normal: (d) => ({
    slug: d.slug,
    name: d.name ?? d.slug,
    description: orNull(d.description),
    settings: isRecord(d.settings) ? d.settings : {},
  }),
  // Settings the file leaves out stay whatever they are (the gateway's defaults, or an API change).
  align(current, desired) {
    const cur = isRecord(current.settings) ? current.settings : {};
    const want = isRecord(desired.settings) ? desired.settings : {};
    const settings = picked(cur, want);
    if (isRecord(want.semantic_cache) && isRecord(cur.semantic_cache))
      settings.semantic_cache = picked(cur.semantic_cache, want.semantic_cache);
    return { ...current, settings };
  },
  async create(ctx, d) {
    const n = projects.normal(d);
    // The API derives a slug from the name: create under the slug itself, then give it its name.
    const p = await call(ctx, 'create_project', {
      body: { name: n.slug, description: n.description, settings: n.settings },
    });
    if (p.slug !== n.slug) {
      throw new Error(`projects: slug '${String(n.slug)}' is taken (the API gave '${String(p.slug)}')`);
    }
    const id = String(p.id);
    if (n.name !== n.slug) await call(ctx, 'update_project', { params: { project_id: id }, body: { name: n.name } });
    return id;
  },
  async update(ctx, id, d, changed) {
    const n = projects.normal(d);
    const body: Decl = {};
    for (const f of changed) if (f !== 'slug') body[f] = n[f];
    await call(ctx, 'update_project', { params: { project_id: id }, body });
  },
  async remove(ctx, id) {
    await call(ctx, 'delete_project', { params: { project_id: id } });
  },
};

function keyHashOf(d: Decl): string | null {
  if (typeof d.key === 'string') return hashApiKey(d.key);
  return str(d.sha256);
}

const isoOrNull = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? v : new Date(ms).toISOString();
};

export const apiKeys: Kind = {
  section: 'api_keys',
  type: 'api_key',
  keyField: 'name',
  secretFields: ['sha256'],
  replaceFields: ['sha256', 'project'],
  async read(ctx) {
    const out: Existing[] = [];
    let afterId: string | undefined;
    for (;;) {
      const rows = await ctx.svc.stores.orgKeys.listKeys(ctx.orgId, { afterId, limit: 200 });
      for (const k of rows) {
        // Two keys may share a name through the API; the file can only mean the first.
        if (ctx.ids.get('api_key')?.has(k.name)) continue;
        remember(ctx, 'api_key', k.name, k.id);
        const auth = await ctx.svc.stores.orgKeys.findAuthRow(ctx.orgId, k.id);
        out.push({
          id: k.id,
          decl: {
            name: k.name,
            project: nameOf(ctx, 'project', k.projectId),
            role: k.role,
            sha256: auth?.keyHash ?? null,
            rate_limits: k.rateLimits,
            allowed_models: k.allowedModels,
            allowed_tools: k.allowedTools,
            expires_at: k.expiresAt,
            metadata: k.metadata,
          },
        });
      }
      if (rows.length < 200) return out;
      afterId = rows[rows.length - 1]?.id;
    }
  },
  normal(d) {
    const project = orNull(d.project);
    const limits = isRecord(d.rate_limits) && Object.keys(d.rate_limits).length > 0 ? d.rate_limits : null;
    return {
      name: d.name,
      project,
      role: d.role ?? defaultKeyRole(project === null ? null : String(project)),
      sha256: keyHashOf(d),
      rate_limits: limits,
      allowed_models: orNull(d.allowed_models),
      allowed_tools: orNull(d.allowed_tools),
      expires_at: isoOrNull(d.expires_at),
      metadata: orNull(d.metadata),
    };
  },
  // Keys the file did not make (the bootstrap admin key, keys people made) are never pruned.
  prunable: (_e, managed) => managed,
  async create(ctx, d) {
    const n = apiKeys.normal(d);
    const keyHash = keyHashOf(d);
    if (keyHash === null) throw new Error(`api_keys: '${String(d.name)}' needs key or sha256`);
    const projectId = n.project === null ? null : idOf(ctx, 'project', String(n.project), 'api_keys.project');
    const role = typeof n.role === 'string' && isRole(n.role) ? n.role : defaultKeyRole(projectId);
    // The operation would mint a plaintext; the file brings its own, so the store is written here
    // and the audit entry recorded like the operation's.
    const k = await ctx.svc.stores.orgKeys.createKey({
      id: newId('key'),
      orgId: ctx.orgId,
      projectId,
      name: String(n.name),
      keyHash,
      prefix: typeof d.key === 'string' ? displayPrefix(d.key) : `sha256:${keyHash.slice(0, 3)}`,
      role,
      rateLimits: n.rate_limits as Decl | null,
      allowedModels: n.allowed_models as string[] | null,
      allowedTools: n.allowed_tools as string[] | null,
      expiresAt: n.expires_at as string | null,
      metadata: n.metadata as Record<string, string> | null,
    });
    await recordAudit(ctx.svc.stores, {
      orgId: ctx.orgId,
      actor: CONFIG_ACTOR,
      action: 'api_key.create',
      resourceType: 'api_key',
      resourceId: k.id,
      before: null,
      after: { id: k.id, name: k.name, project_id: k.projectId, role: k.role, prefix: k.prefix },
      requestId: null,
      origin: ctx.origin,
    });
    return k.id;
  },
  async update(ctx, id, d, changed) {
    const n = apiKeys.normal(d);
    const body: Decl = {};
    for (const f of changed) if (f !== 'name') body[f] = n[f];
    await call(ctx, 'update_api_key', { params: { key_id: id }, body });
  },
  async remove(ctx, id) {
    await call(ctx, 'revoke_api_key', { params: { key_id: id } });
  },
};

export type { ApplyContext };

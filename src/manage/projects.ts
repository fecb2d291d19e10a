// Projects: list / get / create / update / soft-delete (SPEC "Management API: projects"). Settings
// hold log_bodies, the project's rate limits (`rate_limits` for the whole project,
// `end_user_rate_limits` for each end user in it) and the semantic cache (`semantic_cache`, checked by
// cache/settings.ts); a PATCH merges them field by field, and `semantic_cache` field by field too.
import { Type } from '@sinclair/typebox';
import { CACHE_SETTINGS_KEY, DEFAULT_CACHE_SETTINGS, parseCacheSettings } from '../cache/settings.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { isUniqueViolation } from '../store/index.ts';
import { DEFAULT_PROJECT_SETTINGS, type ProjectRecord, withDefaultSettings } from '../store/projects.ts';
import { newId } from '../util/ids.ts';
import { isRecord } from '../util/json.ts';
import { liveOr404, notFound, requireOrgKey } from './access.ts';
import { RateLimitsSchema } from './api-key-schemas.ts';
import { ManagedBy } from './config-managed.ts';
import { pageAfter } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';
import { firstFreeSlug, slugify } from './slug.ts';

const TAG = 'projects';

const ProjectLimits = Nullable(
  Type.Object(RateLimitsSchema.properties, {
    additionalProperties: false,
    description: 'Limits over every call of the project; null removes them',
  }),
);
const EndUserLimits = Nullable(
  Type.Object(RateLimitsSchema.properties, {
    additionalProperties: false,
    description: 'Limits applied to each end user (svc:end_user / X-Svc-User-Id) separately; null removes them',
  }),
);

const CacheFields = {
  enabled: Type.Boolean({ description: 'Consult the cache for this project (default false)' }),
  mode: Type.Union([Type.Literal('semantic'), Type.Literal('exact'), Type.Literal('shadow')], {
    description:
      'semantic: exact tier, then the nearest prompt; exact: identical requests only; shadow: answer upstream, record would-be hits',
  }),
  similarity_threshold: Type.Number({
    description: 'Cosine similarity a semantic neighbour needs (0-1, default 0.95)',
  }),
  ttl_seconds: Type.Integer({ description: 'Entry lifetime (default 3600, at most 30 days)' }),
  max_temperature: Type.Number({ description: 'Higher temperatures skip the cache; unset counts as 0 (default 0.7)' }),
  max_messages: Type.Integer({ description: 'Longer conversations skip the semantic tier (default 1)' }),
  embedder: Type.String({ description: '"local", "<vendor>/<embedding model>" or "@<config slug>"' }),
  scope: Type.Union([Type.Literal('project'), Type.Literal('end_user')], {
    description: 'end_user: entries are shared only between calls of the same end user',
  }),
  max_entries: Type.Integer({ description: 'Entries kept per project; least recently used go first (default 10000)' }),
};
const CacheInput = Nullable(
  Type.Partial(Type.Object(CacheFields), {
    additionalProperties: false,
    description: 'Semantic cache settings; a PATCH changes the fields given, null turns it off with defaults',
  }),
);
const CacheView = Type.Object(CacheFields);

const SettingsInput = Type.Object(
  {
    log_bodies: Type.Optional(Type.Boolean({ description: 'Keep request/response bodies in request logs' })),
    rate_limits: Type.Optional(ProjectLimits),
    end_user_rate_limits: Type.Optional(EndUserLimits),
    semantic_cache: Type.Optional(CacheInput),
    list_models: Type.Optional(
      Type.Boolean({ description: "GET /v1/models lists the models this project's keys may call (default false)" }),
    ),
  },
  { additionalProperties: false },
);

/** The cache setting as it will be stored (merged over the current one), refused with the field named. */
function checkedCache(settings: Record<string, unknown>, current: unknown): void {
  const given = settings[CACHE_SETTINGS_KEY];
  if (given === undefined || given === null) return;
  const merged = isRecord(current) && isRecord(given) ? { ...current, ...given } : given;
  const parsed = parseCacheSettings(merged);
  if (!parsed.ok)
    throw new GatewayError('invalid_parameter', {
      message: `settings.${parsed.field}: ${parsed.message}`,
      param: `settings.${parsed.field}`,
    });
  settings[CACHE_SETTINGS_KEY] = merged;
}

const LIMIT_SETTINGS = ['rate_limits', 'end_user_rate_limits'] as const;

/** Settings as stored: a limit set to null (or to `{}`, which limits nothing) is removed, not kept as null. */
function storedSettings(settings: Record<string, unknown>): Record<string, unknown> {
  const out = { ...settings };
  for (const k of LIMIT_SETTINGS) {
    const v = out[k];
    if (v === null || (isRecord(v) && Object.keys(v).length === 0)) delete out[k];
  }
  if (out[CACHE_SETTINGS_KEY] === null) delete out[CACHE_SETTINGS_KEY];
  return out;
}

export const Project = Type.Object({
  id: Type.String(),
  object: Type.Literal('project'),
  managed_by: ManagedBy,
  name: Type.String(),
  slug: Type.String(),
  description: Nullable(Type.String()),
  settings: Type.Object({
    log_bodies: Type.Boolean(),
    rate_limits: ProjectLimits,
    end_user_rate_limits: EndUserLimits,
    semantic_cache: CacheView,
    list_models: Type.Boolean(),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Nullable(Timestamp),
});

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 2000 });
const ProjectIdParams = Type.Object({ project_id: Type.String({ minLength: 1, maxLength: 100 }) });
const IncludeDeleted = Type.Optional(
  Type.Boolean({ default: false, description: 'Also return soft-deleted projects' }),
);

/** Every cache field, defaults filled in, so callers see what is in force. */
function cacheView(stored: unknown) {
  const parsed = parseCacheSettings(stored);
  return parsed.ok ? parsed.value : { ...DEFAULT_CACHE_SETTINGS };
}

export function projectView(p: ProjectRecord) {
  return {
    id: p.id,
    object: 'project' as const,
    managed_by: null,
    name: p.name,
    slug: p.slug,
    description: p.description,
    // Unset limits read as null so that callers see every setting there is.
    settings: {
      rate_limits: null,
      end_user_rate_limits: null,
      list_models: false,
      ...withDefaultSettings(p.settings),
      semantic_cache: cacheView(p.settings[CACHE_SETTINGS_KEY]),
    },
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    deleted_at: p.deletedAt,
  };
}

const listProjects = defineOperation({
  name: 'list_projects',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/projects',
  tag: TAG,
  summary: 'List projects (paginated by opaque cursor)',
  input: { query: Type.Object({ ...PageQuery, include_deleted: IncludeDeleted }, { additionalProperties: false }) },
  output: pageOf(Project),
  async handler({ svc, principal, query }) {
    const orgId = requireOrgKey(principal);
    return pageAfter(
      query,
      (page) => svc.stores.projects.list(orgId, { ...page, includeDeleted: query.include_deleted === true }),
      projectView,
    );
  },
});

const getProject = defineOperation({
  name: 'get_project',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/projects/{project_id}',
  tag: TAG,
  summary: 'Get one project',
  input: {
    params: ProjectIdParams,
    query: Type.Object({ include_deleted: IncludeDeleted }, { additionalProperties: false }),
  },
  output: Project,
  async handler({ svc, principal, params, query }) {
    const orgId = requireOrgKey(principal);
    const p = await svc.stores.projects.get(orgId, params.project_id);
    if (!p || (p.deletedAt !== null && query.include_deleted !== true)) throw notFound('project', params.project_id);
    return projectView(p);
  },
});

const createProject = defineOperation({
  name: 'create_project',
  method: 'POST',
  role: 'admin',
  path: '/manage/v1/projects',
  tag: TAG,
  summary: 'Create a project; a unique slug is generated from the name',
  status: 201,
  input: {
    body: Type.Object(
      { name: Name, description: Type.Optional(Nullable(Description)), settings: Type.Optional(SettingsInput) },
      { additionalProperties: false },
    ),
  },
  output: Project,
  async handler({ svc, principal, body }) {
    const orgId = requireOrgKey(principal);
    const base = slugify(body.name);
    if (body.settings) checkedCache(body.settings, undefined);
    // A concurrent create may take the same slug between the look-up and the insert: retry.
    for (let attempt = 0; attempt < 5; attempt++) {
      const taken = new Set(await svc.stores.projects.slugsLike(orgId, base));
      try {
        const p = await svc.stores.projects.create({
          id: newId('proj'),
          orgId,
          name: body.name,
          slug: firstFreeSlug(base, taken),
          description: body.description ?? null,
          settings: storedSettings({ ...DEFAULT_PROJECT_SETTINGS, ...body.settings }),
        });
        return projectView(p);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
    throw new Error('could not allocate a unique project slug');
  },
});

const updateProject = defineOperation({
  name: 'update_project',
  method: 'PATCH',
  role: 'admin',
  path: '/manage/v1/projects/{project_id}',
  tag: TAG,
  summary: 'Update name, description or settings of a project',
  input: {
    params: ProjectIdParams,
    body: Type.Object(
      {
        name: Type.Optional(Name),
        description: Type.Optional(Nullable(Description)),
        settings: Type.Optional(SettingsInput),
      },
      { additionalProperties: false },
    ),
  },
  output: Project,
  async handler({ svc, principal, params, body }) {
    const orgId = requireOrgKey(principal);
    const current = liveOr404(await svc.stores.projects.get(orgId, params.project_id), 'project', params.project_id);
    if (body.settings) checkedCache(body.settings, current.settings[CACHE_SETTINGS_KEY]);
    const p = await svc.stores.projects.update(orgId, params.project_id, {
      name: body.name,
      description: body.description,
      settings: body.settings ? storedSettings({ ...current.settings, ...body.settings }) : undefined,
    });
    if (!p) throw notFound('project', params.project_id);
    return projectView(p);
  },
});

const deleteProject = defineOperation({
  name: 'delete_project',
  method: 'DELETE',
  role: 'admin',
  path: '/manage/v1/projects/{project_id}',
  tag: TAG,
  summary: 'Soft-delete a project and revoke the API keys scoped to it',
  input: { params: ProjectIdParams },
  output: Project,
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    liveOr404(await svc.stores.projects.get(orgId, params.project_id), 'project', params.project_id);
    // Keys first: once the project is gone no request may still authenticate with one of its keys.
    await svc.stores.orgKeys.revokeProjectKeys(orgId, params.project_id);
    const p = await svc.stores.projects.softDelete(orgId, params.project_id);
    if (!p) throw notFound('project', params.project_id);
    return projectView(p);
  },
});

export const projectOperations: Operation[] = [listProjects, getProject, createProject, updateProject, deleteProject];

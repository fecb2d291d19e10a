// Projects: list / get / create / update / soft-delete (SPEC "Management API: projects"). Settings
// hold log_bodies and the project's rate limits (`rate_limits` for the whole project,
// `end_user_rate_limits` for each end user in it); a PATCH merges them field by field.
import { Type } from '@sinclair/typebox';
import { isUniqueViolation } from '../store/index.ts';
import { DEFAULT_PROJECT_SETTINGS, type ProjectRecord, withDefaultSettings } from '../store/projects.ts';
import { newId } from '../util/ids.ts';
import { isRecord } from '../util/json.ts';
import { notFound, requireOrgKey } from './access.ts';
import { RateLimitsSchema } from './api-keys.ts';
import { decodeCursor, toPage } from './cursor.ts';
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

const SettingsInput = Type.Object(
  {
    log_bodies: Type.Optional(Type.Boolean({ description: 'Keep request/response bodies in request logs' })),
    rate_limits: Type.Optional(ProjectLimits),
    end_user_rate_limits: Type.Optional(EndUserLimits),
  },
  { additionalProperties: false },
);

const LIMIT_SETTINGS = ['rate_limits', 'end_user_rate_limits'] as const;

/** Settings as stored: a limit set to null (or to `{}`, which limits nothing) is removed, not kept as null. */
function storedSettings(settings: Record<string, unknown>): Record<string, unknown> {
  const out = { ...settings };
  for (const k of LIMIT_SETTINGS) {
    const v = out[k];
    if (v === null || (isRecord(v) && Object.keys(v).length === 0)) delete out[k];
  }
  return out;
}

export const Project = Type.Object({
  id: Type.String(),
  object: Type.Literal('project'),
  name: Type.String(),
  slug: Type.String(),
  description: Nullable(Type.String()),
  settings: Type.Object({
    log_bodies: Type.Boolean(),
    rate_limits: ProjectLimits,
    end_user_rate_limits: EndUserLimits,
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

export function projectView(p: ProjectRecord) {
  return {
    id: p.id,
    object: 'project' as const,
    name: p.name,
    slug: p.slug,
    description: p.description,
    // Unset limits read as null so that callers see every setting there is.
    settings: { rate_limits: null, end_user_rate_limits: null, ...withDefaultSettings(p.settings) },
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    deleted_at: p.deletedAt,
  };
}

const listProjects = defineOperation({
  name: 'list_projects',
  method: 'GET',
  path: '/manage/v1/projects',
  tag: TAG,
  summary: 'List projects (paginated by opaque cursor)',
  input: { query: Type.Object({ ...PageQuery, include_deleted: IncludeDeleted }, { additionalProperties: false }) },
  output: pageOf(Project),
  async handler({ svc, principal, query }) {
    const orgId = requireOrgKey(principal);
    const limit = query.limit ?? 50;
    const rows = await svc.stores.projects.list(orgId, {
      afterId: decodeCursor(query.cursor),
      limit: limit + 1,
      includeDeleted: query.include_deleted === true,
    });
    return toPage(rows, limit, projectView);
  },
});

const getProject = defineOperation({
  name: 'get_project',
  method: 'GET',
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
    const current = await svc.stores.projects.get(orgId, params.project_id);
    if (!current || current.deletedAt !== null) throw notFound('project', params.project_id);
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
  path: '/manage/v1/projects/{project_id}',
  tag: TAG,
  summary: 'Soft-delete a project and revoke the API keys scoped to it',
  input: { params: ProjectIdParams },
  output: Project,
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    const current = await svc.stores.projects.get(orgId, params.project_id);
    if (!current || current.deletedAt !== null) throw notFound('project', params.project_id);
    // Keys first: once the project is gone no request may still authenticate with one of its keys.
    await svc.stores.orgKeys.revokeProjectKeys(orgId, params.project_id);
    const p = await svc.stores.projects.softDelete(orgId, params.project_id);
    if (!p) throw notFound('project', params.project_id);
    return projectView(p);
  },
});

export const projectOperations: Operation[] = [listProjects, getProject, createProject, updateProject, deleteProject];

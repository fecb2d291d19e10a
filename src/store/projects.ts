// Projects. Deletion is soft: the row stays (history remains queryable) with deleted_at set.
// Create, update and delete publish a `project` change.

import { fromJsonText, isRecord } from '../util/json.ts';
import { nowIso } from '../util/time.ts';
import { type ChangePublisher, NO_CHANGES } from './changes.ts';
import type { Db } from './db.ts';
import { escapeLike, likeEscaped } from './like.ts';
import { orgTable } from './org-table.ts';
import type { ProjectsTable } from './schema.ts';

export interface ProjectSettings {
  /** Keep request and response bodies in the request log. */
  log_bodies: boolean;
  [key: string]: unknown;
}

export const DEFAULT_PROJECT_SETTINGS: ProjectSettings = { log_bodies: true };

/** Stored settings with every unset field at its default. */
export function withDefaultSettings(settings: Record<string, unknown>): ProjectSettings {
  return { ...DEFAULT_PROJECT_SETTINGS, ...settings } as ProjectSettings;
}

export interface ProjectRecord {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  description: string | null;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export type NewProject = Pick<ProjectRecord, 'id' | 'orgId' | 'name' | 'slug' | 'description' | 'settings'>;

export interface ProjectPatch {
  name?: string;
  description?: string | null;
  settings?: Record<string, unknown>;
}

export interface ProjectListOptions {
  afterId?: string;
  limit: number;
  includeDeleted?: boolean;
}

export interface ProjectStore {
  /** Fails with a unique violation when (org, slug) is taken; callers retry with another slug. */
  create(p: NewProject): Promise<ProjectRecord>;
  get(orgId: string, id: string): Promise<ProjectRecord | undefined>;
  list(orgId: string, opts: ProjectListOptions): Promise<ProjectRecord[]>;
  /** Every slug in the org that starts with `base` (deleted rows included: slugs are never reused). */
  slugsLike(orgId: string, base: string): Promise<string[]>;
  update(orgId: string, id: string, patch: ProjectPatch): Promise<ProjectRecord | undefined>;
  softDelete(orgId: string, id: string): Promise<ProjectRecord | undefined>;
  changedSince(sinceIso: string): Promise<ProjectRecord[]>;
}

function toRecord(r: ProjectsTable): ProjectRecord {
  const settings = fromJsonText(r.settings);
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    slug: r.slug,
    description: r.description,
    settings: isRecord(settings) ? settings : {},
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

export function createProjectStore(db: Db, changes: ChangePublisher = NO_CHANGES): ProjectStore {
  const table = orgTable(db, 'projects', toRecord, (orgId, id) => changes.publish({ topic: 'project', id, orgId }));
  const get = table.get;

  return {
    create(p) {
      const now = nowIso();
      const row: ProjectsTable = {
        id: p.id,
        org_id: p.orgId,
        name: p.name,
        slug: p.slug,
        description: p.description,
        settings: JSON.stringify(p.settings),
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      return table.insert(row, () => [
        { orgId: p.orgId, type: 'project.created', data: { id: p.id, slug: p.slug, name: p.name } },
      ]);
    },
    get,
    async list(orgId, opts) {
      let q = db.selectFrom('projects').selectAll().where('org_id', '=', orgId);
      if (opts.afterId !== undefined) q = q.where('id', '>', opts.afterId);
      if (!opts.includeDeleted) q = q.where('deleted_at', 'is', null);
      const rows = await q.orderBy('id').limit(opts.limit).execute();
      return rows.map(toRecord);
    },
    async slugsLike(orgId, base) {
      const rows = await db
        .selectFrom('projects')
        .select('slug')
        .where('org_id', '=', orgId)
        .where(likeEscaped('slug', `${escapeLike(base)}%`))
        .execute();
      return rows.map((r) => r.slug);
    },
    async update(orgId, id, patch) {
      const set: Partial<ProjectsTable> = {};
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.description !== undefined) set.description = patch.description;
      if (patch.settings !== undefined) set.settings = JSON.stringify(patch.settings);
      // A deleted project is answered as it is, not as unknown.
      return (await table.update(orgId, id, set)) ?? get(orgId, id);
    },
    async softDelete(orgId, id) {
      const deleted = await table.softDelete(orgId, id, (row) => [
        { orgId, type: 'project.deleted', data: { id, slug: row.slug, name: row.name } },
      ]);
      return deleted ?? get(orgId, id);
    },
    changedSince: table.changedSince,
  };
}

// Resources owned by a SWITCHYARD_CONFIG file (issue 36): the marker table and the refusal every
// management write passes through, so the file stays the truth. The config-file code (above this
// layer) writes the markers; runOperation reads them before any write.
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import type { AuditActor } from '../store/audit-log.ts';
import type { Db } from '../store/db.ts';
import { isRecord } from '../util/json.ts';
import { nowIso } from '../util/time.ts';
import { Nullable } from './schemas.ts';

interface ConfigManagedTable {
  org_id: string;
  resource_type: string;
  resource_id: string;
  name: string;
  updated_at: string;
}

/** The actor the configuration file's writes are audited as, and the one caller the refusal lets through. */
export const CONFIG_ACTOR: AuditActor = { type: 'system', id: 'config', name: 'SWITCHYARD_CONFIG' };

export interface ManagedResource {
  resourceType: string;
  resourceId: string;
  name: string;
}

const tables = (db: Db) => db.withTables<{ config_managed: ConfigManagedTable }>();

export async function listManaged(db: Db, orgId: string): Promise<ManagedResource[]> {
  const rows = await tables(db)
    .selectFrom('config_managed')
    .select(['resource_type', 'resource_id', 'name'])
    .where('org_id', '=', orgId)
    .execute();
  return rows.map((r) => ({ resourceType: r.resource_type, resourceId: r.resource_id, name: r.name }));
}

export async function isManaged(db: Db, orgId: string, resourceType: string, resourceId: string): Promise<boolean> {
  const row = await tables(db)
    .selectFrom('config_managed')
    .select('resource_id')
    .where('org_id', '=', orgId)
    .where('resource_type', '=', resourceType)
    .where('resource_id', '=', resourceId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function markManaged(db: Db, orgId: string, r: ManagedResource): Promise<void> {
  await tables(db)
    .insertInto('config_managed')
    .values({
      org_id: orgId,
      resource_type: r.resourceType,
      resource_id: r.resourceId,
      name: r.name,
      updated_at: nowIso(),
    })
    .onConflict((oc) => oc.columns(['org_id', 'resource_type', 'resource_id']).doUpdateSet({ name: r.name }))
    .execute();
}

export async function unmarkManaged(db: Db, orgId: string, resourceType: string, resourceId: string): Promise<void> {
  await tables(db)
    .deleteFrom('config_managed')
    .where('org_id', '=', orgId)
    .where('resource_type', '=', resourceType)
    .where('resource_id', '=', resourceId)
    .execute();
}

/** Writes that change nothing the file declares: a webhook signing secret is never in the file. */
const FILE_NEUTRAL_OPERATIONS = new Set(['rotate_webhook_secret']);

/** 409 managed_by_config for a write to a file-owned resource by anyone but the file itself. */
export async function refuseConfigManaged(
  db: Db,
  orgId: string,
  operation: string,
  resourceType: string,
  resourceId: string | undefined,
  actor: AuditActor | undefined,
): Promise<void> {
  if (resourceId === undefined || actor?.id === CONFIG_ACTOR.id || FILE_NEUTRAL_OPERATIONS.has(operation)) return;
  if (await isManaged(db, orgId, resourceType, resourceId)) {
    throw new GatewayError('managed_by_config', { vars: { what: resourceType, id: resourceId } });
  }
}

/** The view field of every kind the file can own: who owns the resource, when not the API. */
export const ManagedBy = Nullable(
  Type.Literal('config', { description: 'Declared in SWITCHYARD_CONFIG: API and dashboard writes answer 409' }),
);

/** View `object` names the file can own, which are also their marker's resource type. */
const MANAGEABLE = new Set([
  'provider',
  'project',
  'api_key',
  'routing_config',
  'budget',
  'webhook_endpoint',
  'guardrail',
  'model_alias',
  'model_price',
]);

function viewsIn(result: unknown): Record<string, unknown>[] {
  if (!isRecord(result)) return [];
  const list = Array.isArray(result.data) ? result.data.filter(isRecord) : [result];
  return list.filter(
    (v) => typeof v.id === 'string' && typeof v.object === 'string' && MANAGEABLE.has(v.object) && v.deleted !== true,
  );
}

/**
 * Sets `managed_by` on the views an operation answers with (one object, or a list's `data`), in one
 * read, so every door (REST, MCP, the dashboard) shows the same owner without each view asking.
 */
export async function withManagedBy<T>(db: Db, orgId: string, result: T): Promise<T> {
  const views = viewsIn(result);
  if (views.length === 0) return result;
  const rows = await tables(db)
    .selectFrom('config_managed')
    .select(['resource_type', 'resource_id'])
    .where('org_id', '=', orgId)
    .where('resource_type', 'in', [...new Set(views.map((v) => String(v.object)))])
    .where('resource_id', 'in', [...new Set(views.map((v) => String(v.id)))])
    .execute();
  const owned = new Set(rows.map((r) => `${r.resource_type}\0${r.resource_id}`));
  for (const v of views) v.managed_by = owned.has(`${String(v.object)}\0${String(v.id)}`) ? 'config' : null;
  return result;
}

/** Sets the org's markers to exactly `list` (a rolled-back apply puts back the ones it found). */
export async function replaceManaged(db: Db, orgId: string, list: readonly ManagedResource[]): Promise<void> {
  await tables(db).deleteFrom('config_managed').where('org_id', '=', orgId).execute();
  for (const r of list) await markManaged(db, orgId, r);
}

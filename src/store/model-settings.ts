// Model aliases and price overrides, per organization. One row per (org, kind, name); a deletion
// sets deleted_at and a later set revives the same row, so the live mirror follows one id per name.
// Every write that changes something publishes a `model_setting` change; a write that would store
// what is already there writes nothing and publishes nothing (a config file applied twice is silent).
// The store does not judge values: the management side validated them.
import type { JsonValue } from '../ir/types.ts';
import { newId } from '../util/ids.ts';
import { fromJsonText } from '../util/json.ts';
import { nowIso } from '../util/time.ts';
import { type ChangePublisher, NO_CHANGES } from './changes.ts';
import type { Db } from './db.ts';

export type ModelSettingKind = 'alias' | 'price';

export interface ModelSettingRecord {
  id: string;
  orgId: string;
  kind: ModelSettingKind;
  /** The alias name, or the priced model as `vendor/model`. */
  name: string;
  value: JsonValue;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface ModelSettingWrite {
  record: ModelSettingRecord;
  /** False when the stored value already was this one (nothing written, no event). */
  changed: boolean;
}

export interface ModelSettingStore {
  /** Creates, replaces or revives the setting. */
  set(orgId: string, kind: ModelSettingKind, name: string, value: JsonValue): Promise<ModelSettingWrite>;
  /** The deleted setting; undefined when no live setting has the name. */
  remove(orgId: string, kind: ModelSettingKind, name: string): Promise<ModelSettingRecord | undefined>;
  /** Live settings of the org, by kind then name. */
  list(orgId: string): Promise<ModelSettingRecord[]>;
  /** Deleted ones included (the mirror's event reload). */
  get(orgId: string, id: string): Promise<ModelSettingRecord | undefined>;
  /** Rows with updated_at >= the instant, deleted ones included (the mirror's poll). */
  changedSince(sinceIso: string): Promise<ModelSettingRecord[]>;
  /** Every live setting of every org, for warming the mirror at start. */
  listAllLive(): Promise<ModelSettingRecord[]>;
}

export type ModelSettingsTable = {
  id: string;
  org_id: string;
  kind: string;
  name: string;
  value: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type ModelSettingTables = { model_settings: ModelSettingsTable };

function toRecord(r: ModelSettingsTable): ModelSettingRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    kind: r.kind === 'price' ? 'price' : 'alias',
    name: r.name,
    value: fromJsonText(r.value) as JsonValue,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

export function createModelSettingStore(baseDb: Db, changes: ChangePublisher = NO_CHANGES): ModelSettingStore {
  const db = baseDb.withTables<ModelSettingTables>();
  const changed = (orgId: string, id: string) => changes.publish({ topic: 'model_setting', id, orgId });
  const byName = (orgId: string, kind: ModelSettingKind, name: string) =>
    db
      .selectFrom('model_settings')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .executeTakeFirst();

  return {
    async set(orgId, kind, name, value) {
      const text = JSON.stringify(value);
      const current = await byName(orgId, kind, name);
      if (current && current.deleted_at === null && current.value === text)
        return { record: toRecord(current), changed: false };
      const now = nowIso();
      // Two writers racing on a new name both insert: the unique index turns the second into an update.
      const row = await db
        .insertInto('model_settings')
        .values({
          id: newId('mset'),
          org_id: orgId,
          kind,
          name,
          value: text,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        })
        .onConflict((oc) =>
          oc.columns(['org_id', 'kind', 'name']).doUpdateSet({ value: text, updated_at: now, deleted_at: null }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      await changed(orgId, row.id);
      return { record: toRecord(row), changed: true };
    },
    async remove(orgId, kind, name) {
      const now = nowIso();
      const row = await db
        .updateTable('model_settings')
        .set({ deleted_at: now, updated_at: now })
        .where('org_id', '=', orgId)
        .where('kind', '=', kind)
        .where('name', '=', name)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      await changed(orgId, row.id);
      return toRecord(row);
    },
    async list(orgId) {
      const rows = await db
        .selectFrom('model_settings')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('deleted_at', 'is', null)
        .orderBy('kind')
        .orderBy('name')
        .execute();
      return rows.map(toRecord);
    },
    async get(orgId, id) {
      const r = await db
        .selectFrom('model_settings')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r ? toRecord(r) : undefined;
    },
    async changedSince(sinceIso) {
      const rows = await db.selectFrom('model_settings').selectAll().where('updated_at', '>=', sinceIso).execute();
      return rows.map(toRecord);
    },
    async listAllLive() {
      const rows = await db.selectFrom('model_settings').selectAll().where('deleted_at', 'is', null).execute();
      return rows.map(toRecord);
    },
  };
}

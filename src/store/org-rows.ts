// Rows an organization addresses by id and deletes softly (files, batches, stored responses): the
// key is (org_id, id), and deletion stamps deleted_at (epoch ms) so the row stays for history and
// cost records but is never handed to its org again.
import type { Db } from './db.ts';

/** The columns every such table has. */
export interface SoftDeletedRow {
  org_id: string;
  id: string;
  deleted_at: number | null;
}

/** Named, not a free string, so a table without these columns cannot be passed by mistake. */
export type SoftDeletedTable = 'files' | 'batches' | 'responses';

export interface LiveRows<R> {
  /** Not deleted; undefined when unknown. */
  get(orgId: string, id: string): Promise<R | undefined>;
  /** False when there was no live row to delete. */
  markDeleted(orgId: string, id: string, at: number): Promise<boolean>;
}

/** `get` and `markDeleted` of one table, `get` answering with the row mapped to the store's record. */
export function liveRows<Row extends SoftDeletedRow, R>(
  baseDb: Db,
  table: SoftDeletedTable,
  toRecord: (row: Row) => R,
): LiveRows<R> {
  const db = baseDb.withTables<Record<SoftDeletedTable, SoftDeletedRow>>();
  return {
    async get(orgId, id) {
      const row = await db
        .selectFrom(table)
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      // selectAll reads every column of the table, not only the ones this view declares.
      return row === undefined ? undefined : toRecord(row as Row);
    },

    async markDeleted(orgId, id, at) {
      const r = await db
        .updateTable(table)
        .set({ deleted_at: at })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}

// The writes and reads that the org-owned configuration tables (projects, provider credentials,
// budgets, guardrail policies, webhook endpoints) share: rows keyed by (org_id, id), stamped with
// ISO updated_at on every write so the mirrors' `changedSince` poll sees them, and deleted softly
// with an ISO deleted_at. Writes publish a change after their commit, and may record domain events
// in the same transaction, so a mirror or a webhook never sees a write that did not happen.
import type { DomainEvent } from '../ports/domain-events.ts';
import { nowIso } from '../util/time.ts';
import type { Db } from './db.ts';
import { appendEvents } from './outbox.ts';

/** The columns every such table has. */
export interface OrgRow {
  org_id: string;
  id: string;
  updated_at: string;
}

export interface SoftDeletedOrgRow extends OrgRow {
  deleted_at: string | null;
}

/** Named, not a free string, so a table without these columns cannot be passed by mistake. */
export type OrgTableName = 'projects' | 'provider_credentials' | 'budgets' | 'guardrail_policies' | 'webhook_endpoints';
/** Every table whose rows an org addresses by id; only `getOrgRow` applies to those outside OrgTableName. */
export type OrgKeyedTableName = OrgTableName | 'mcp_servers' | 'audit_log' | 'request_logs';

/** The row's events, written with the change in its transaction. */
export type RowEvents<Row> = (row: Row) => DomainEvent[];

export interface OrgTable<Row extends SoftDeletedOrgRow, R> {
  /** Deleted rows included; undefined when unknown. */
  get(orgId: string, id: string): Promise<R | undefined>;
  /** Rows with updated_at >= the instant, deleted ones included (a mirror's poll). */
  changedSince(sinceIso: string): Promise<R[]>;
  /** Every live row of every org by id, for warming a mirror at start. */
  listAllLive(): Promise<R[]>;
  /** Inserts the row (and its events, in one transaction) and publishes the change. */
  insert(row: Row, events?: RowEvents<Row>): Promise<R>;
  /**
   * Sets `set` and a new updated_at on the org's live row and publishes the change; `events` are
   * written in the same transaction. Undefined when no live row has the id.
   */
  update(orgId: string, id: string, set: Partial<Row>, events?: RowEvents<Row>): Promise<R | undefined>;
  /** `update` that stamps deleted_at (and `set`, such as a status). */
  softDelete(orgId: string, id: string, events?: RowEvents<Row>, set?: Partial<Row>): Promise<R | undefined>;
}

/** `get` of a table addressed by (org_id, id), the row mapped to the store's record. */
export function getOrgRow<Row extends Pick<OrgRow, 'org_id' | 'id'>, R>(
  baseDb: Db,
  table: OrgKeyedTableName,
  toRecord: (row: Row) => R,
): (orgId: string, id: string) => Promise<R | undefined> {
  const db = baseDb.withTables<Record<OrgKeyedTableName, Pick<OrgRow, 'org_id' | 'id'>>>();
  return async (orgId, id) => {
    const row = await db
      .selectFrom(table)
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    // selectAll reads every column of the table, not only the ones this view declares.
    return row === undefined ? undefined : toRecord(row as Row);
  };
}

/** The shared reads and writes of one table; `publish` tells the change bus (if any) about a written row. */
export function orgTable<Row extends SoftDeletedOrgRow, R>(
  baseDb: Db,
  table: OrgTableName,
  toRecord: (row: Row) => R,
  publish: (orgId: string, id: string) => Promise<void> = () => Promise.resolve(),
): OrgTable<Row, R> {
  type View = Record<OrgTableName, SoftDeletedOrgRow>;
  const db = baseDb.withTables<View>();
  const records = (rows: SoftDeletedOrgRow[]) => rows.map((r) => toRecord(r as Row));

  type Written = SoftDeletedOrgRow | undefined;
  /** In a transaction only when there are events to write with the change. */
  async function write(events: RowEvents<Row> | undefined, run: (q: typeof db) => Promise<Written>) {
    if (events === undefined) return run(db);
    return db.transaction().execute(async (tx) => {
      const row = await run(tx);
      if (row !== undefined) await appendEvents(tx, events(row as Row));
      return row;
    });
  }

  async function update(orgId: string, id: string, set: Partial<Row>, events?: RowEvents<Row>) {
    const row = await write(events, (q) =>
      q
        .updateTable(table)
        // The view knows only the shared columns; `set` names the table's own, checked against Row.
        .set({ ...(set as Partial<SoftDeletedOrgRow>), updated_at: set.updated_at ?? nowIso() })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst(),
    );
    if (row === undefined) return undefined;
    await publish(orgId, id);
    return toRecord(row as Row);
  }

  return {
    get: getOrgRow(baseDb, table, toRecord),
    async changedSince(sinceIso) {
      return records(await db.selectFrom(table).selectAll().where('updated_at', '>=', sinceIso).execute());
    },
    async listAllLive() {
      return records(await db.selectFrom(table).selectAll().where('deleted_at', 'is', null).orderBy('id').execute());
    },
    async insert(row, events) {
      await write(events, async (q) => {
        await q.insertInto(table).values(row).execute();
        return row;
      });
      await publish(row.org_id, row.id);
      return toRecord(row);
    },
    update,
    softDelete(orgId, id, events, set) {
      const now = nowIso();
      return update(orgId, id, { ...set, deleted_at: now, updated_at: now } as Partial<Row>, events);
    },
  };
}

// The analytics bounds on end users and tag sets become per project instead of per org: one
// project's keys could use up the org's 200 tag sets for the day with cheap refused calls, and every
// other project's tags then counted as `other` (issue 38). The admission tables get project_id in
// their keys ('' for org-wide keys). A primary key cannot be altered in SQLite, so both are rebuilt.
//
// Their rows are admission state for the current UTC day only (no report reads them), and which
// project took each slot was never stored, so none is carried over: on the day of the upgrade,
// each project starts its bounds afresh. Rows already rolled up keep the names they were given.
import { type CreateTableBuilder, type Kysely, SqliteAdapter, sql } from 'kysely';

type Table = CreateTableBuilder<string, string>;

const sqliteOf = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof SqliteAdapter;

async function create(db: Kysely<unknown>, withProject: boolean): Promise<void> {
  // As in migration 040: no rowid copy of the key in SQLite, room for HOT updates in PostgreSQL.
  const end = sqliteOf(db) ? sql`without rowid` : sql`with (fillfactor = 70)`;
  const scope = withProject ? ['org_id', 'project_id'] : ['org_id'];
  let values: Table = db.schema.createTable('analytics_dim_values').addColumn('org_id', 'text', (c) => c.notNull());
  let slots: Table = db.schema.createTable('analytics_dim_slots').addColumn('org_id', 'text', (c) => c.notNull());
  if (withProject) {
    // The default is for writers that predate the column (fixtures); every current writer sets it.
    values = values.addColumn('project_id', 'text', (c) => c.notNull().defaultTo(''));
    slots = slots.addColumn('project_id', 'text', (c) => c.notNull().defaultTo(''));
  }
  await values
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_dim_values_pk', [...scope, 'day', 'dim', 'value'])
    .modifyEnd(end)
    .execute();
  await slots
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_dim_slots_pk', [...scope, 'day', 'dim'])
    .modifyEnd(end)
    .execute();
}

async function replace(db: Kysely<unknown>, withProject: boolean): Promise<void> {
  const work = async (db: Kysely<unknown>) => {
    await db.schema.dropTable('analytics_dim_slots').execute();
    await db.schema.dropTable('analytics_dim_values').execute();
    await create(db, withProject);
  };
  // SQLite runs migrations outside a transaction (see migration 130); PostgreSQL's already run in one.
  if (sqliteOf(db)) await db.transaction().execute(work);
  else await work(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await replace(db, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await replace(db, false);
}

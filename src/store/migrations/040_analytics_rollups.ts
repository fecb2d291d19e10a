// Analytics rollups, kept as request-log rows are inserted (src/store/rollups*.ts) so that reports
// never scan request_logs and outlive its retention. Every rollup exists at two grains (an hour and
// a UTC day, `grain` in seconds): hourly rows answer hourly series and the partial days at the
// edges of a range, daily rows the whole days in between.
//   analytics_rollups          per org x project x model x provider x status class
//   analytics_tags             per org x project x model x provider x tag set, rows with tags only
//   analytics_users            per org x project x end user x tag set, rows with an end user only
//   analytics_dim_values/slots which end users / tag sets were admitted per org and day (rollups.ts
//                              states the bounds)
// Each rollup row carries its latency histogram (`hist`, `bin:count` pairs, rollups-histogram.ts):
// one row per key keeps both the writes per log row and the rows a report reads few.
import { type CreateTableBuilder, type Kysely, SqliteAdapter, sql } from 'kysely';

const PERIOD = ['org_id', 'grain', 'period_start', 'project_id'] as const;
const KEY = [...PERIOD, 'model', 'provider'] as const;
const TAGS_KEY = [...KEY, 'tagset'] as const;
const USERS_KEY = [...PERIOD, 'end_user', 'tagset'] as const;
const METRICS = ['requests', 'errors', 'input_tokens', 'output_tokens'] as const;

type Table = CreateTableBuilder<string, string>;

function keyColumns(t: Table, columns: readonly string[]): Table {
  for (const c of columns) {
    const type = c === 'grain' || c === 'period_start' ? 'bigint' : 'text';
    t = t.addColumn(c, type, (col) => col.notNull());
  }
  return t;
}

function metricColumns(t: Table): Table {
  for (const c of METRICS) t = t.addColumn(c, 'bigint', (col) => col.notNull());
  return t.addColumn('cost_usd', 'double precision', (c) => c.notNull()).addColumn('hist', 'text', (c) => c.notNull());
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // The key is most of each row: in SQLite a rowid table would store it twice (table + index) and
  // walk two b-trees per upsert. In PostgreSQL, free room on each page lets the constant updates of
  // counters and histograms be HOT updates, which write no new index entries.
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const finish = (t: Table) => t.modifyEnd(sqlite ? sql`without rowid` : sql`with (fillfactor = 70)`);

  await finish(
    metricColumns(
      keyColumns(db.schema.createTable('analytics_rollups'), KEY).addColumn('status_class', 'integer', (c) =>
        c.notNull(),
      ),
    ).addPrimaryKeyConstraint('analytics_rollups_pk', [...KEY, 'status_class']),
  ).execute();
  await finish(
    metricColumns(keyColumns(db.schema.createTable('analytics_tags'), TAGS_KEY)).addPrimaryKeyConstraint(
      'analytics_tags_pk',
      [...TAGS_KEY],
    ),
  ).execute();
  await finish(
    metricColumns(keyColumns(db.schema.createTable('analytics_users'), USERS_KEY)).addPrimaryKeyConstraint(
      'analytics_users_pk',
      [...USERS_KEY],
    ),
  ).execute();
  await finish(
    db.schema
      .createTable('analytics_dim_values')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('day', 'bigint', (c) => c.notNull())
      .addColumn('dim', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('analytics_dim_values_pk', ['org_id', 'day', 'dim', 'value']),
  ).execute();
  await finish(
    db.schema
      .createTable('analytics_dim_slots')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('day', 'bigint', (c) => c.notNull())
      .addColumn('dim', 'text', (c) => c.notNull())
      .addColumn('used', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('analytics_dim_slots_pk', ['org_id', 'day', 'dim']),
  ).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'analytics_dim_slots',
    'analytics_dim_values',
    'analytics_users',
    'analytics_tags',
    'analytics_rollups',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}

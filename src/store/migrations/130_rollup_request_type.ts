// The analytics rollups get the log row's request_type as a key column, so a report can count
// inference apart from polls and listings (src/logs/analytics-report.ts). A primary key cannot be
// altered in SQLite, so each table is rebuilt (on both dialects, one code path): a new table with
// the new key, the rows copied over, the old table dropped and the new one renamed.
//
// Rows rolled up before this migration get request_type '' (unknown): which types they mixed was
// never stored, and guessing from the model (polls have none) would also move refused inference
// calls. The default report counts '' with inference, so totals of past periods do not drop when
// a gateway is upgraded; only an explicit list of types leaves them out.
import { type CreateTableBuilder, type Kysely, type RawBuilder, SqliteAdapter, sql } from 'kysely';

const PERIOD = ['org_id', 'grain', 'period_start', 'project_id'] as const;
const METRICS = ['requests', 'errors', 'input_tokens', 'output_tokens'] as const;

interface Shape {
  name: string;
  /** The key before this migration; the new key puts request_type after the period. */
  oldKey: readonly string[];
  newKey: readonly string[];
}

const TABLES: readonly Shape[] = [
  { name: 'analytics_rollups', rest: ['model', 'provider', 'status_class'] },
  { name: 'analytics_tags', rest: ['model', 'provider', 'tagset'] },
  { name: 'analytics_users', rest: ['end_user', 'tagset'] },
].map(({ name, rest }) => ({
  name,
  oldKey: [...PERIOD, ...rest],
  newKey: [...PERIOD, 'request_type', ...rest],
}));

type Table = CreateTableBuilder<string, string>;

function columnType(c: string): 'bigint' | 'integer' | 'text' {
  if (c === 'grain' || c === 'period_start') return 'bigint';
  return c === 'status_class' ? 'integer' : 'text';
}

/** The table as migration 040 made it, with `key` as its key columns. */
function define(db: Kysely<unknown>, name: string, key: readonly string[]): Table {
  let t = db.schema.createTable(name);
  for (const c of key) {
    // The default is only for writers that predate the column; every current writer sets it.
    t = t.addColumn(c, columnType(c), (col) => (c === 'request_type' ? col.notNull().defaultTo('') : col.notNull()));
  }
  for (const c of METRICS) t = t.addColumn(c, 'bigint', (col) => col.notNull());
  return t.addColumn('cost_usd', 'double precision', (c) => c.notNull()).addColumn('hist', 'text', (c) => c.notNull());
}

/**
 * Replaces `s.name` with a table keyed by `key`, filled by `fill` (an INSERT ... SELECT from the old
 * table into the new one, whose name it is given).
 */
async function rebuild(
  db: Kysely<unknown>,
  s: Shape,
  key: readonly string[],
  fill: (into: string) => RawBuilder<unknown>,
): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const next = `${s.name}_v130`;
  // As in migration 040: no rowid copy of the key in SQLite, room for HOT updates in PostgreSQL.
  await define(db, next, key)
    .addPrimaryKeyConstraint(`${next}_pk`, [...key])
    .modifyEnd(sqlite ? sql`without rowid` : sql`with (fillfactor = 70)`)
    .execute();
  await fill(next).execute(db);
  await db.schema.dropTable(s.name).execute();
  await db.schema.alterTable(next).renameTo(s.name).execute();
  // PostgreSQL names the key's index after the constraint, and index names are per schema.
  if (!sqlite) {
    const [from, to] = [sql.ref(`${next}_pk`), sql.ref(`${s.name}_pk`)];
    await sql`ALTER TABLE ${sql.table(s.name)} RENAME CONSTRAINT ${from} TO ${to}`.execute(db);
  }
}

const refs = (cols: readonly string[]) => sql.join(cols.map((c) => sql.ref(c)));
const VALUES = [...METRICS, 'cost_usd', 'hist'] as const;

/**
 * SQLite runs migrations outside a transaction (kysely: no transactional DDL there, though SQLite
 * has it): one keeps a crash between a drop and its rename from losing the table. PostgreSQL
 * migrations already run in one.
 */
async function atomically(db: Kysely<unknown>, work: (db: Kysely<unknown>) => Promise<void>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) await db.transaction().execute(work);
  else await work(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await atomically(db, async (db) => {
    for (const s of TABLES) {
      const cols = [...s.oldKey, ...VALUES];
      const copy = (into: string) => sql`INSERT INTO ${sql.table(into)} (${refs([...cols, 'request_type'])})
        SELECT ${refs(cols)}, '' FROM ${sql.table(s.name)}`;
      await rebuild(db, s, s.newKey, copy);
    }
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  // Rows of one old key merge: counters add up, and histogram texts may repeat a bin (readers sum
  // the pairs, rollups-histogram.ts), so joining them with commas is their sum.
  const hist = sqlite ? sql`group_concat(hist, ',')` : sql`string_agg(hist, ',')`;
  const sums = sql.join(
    ['requests', 'errors', 'input_tokens', 'output_tokens', 'cost_usd'].map((c) => sql`SUM(${sql.ref(c)})`),
  );
  await atomically(db, async (db) => {
    for (const s of TABLES) {
      const merge = (into: string) => sql`INSERT INTO ${sql.table(into)} (${refs([...s.oldKey, ...VALUES])})
        SELECT ${refs(s.oldKey)}, ${sums}, ${hist} FROM ${sql.table(s.name)} GROUP BY ${refs(s.oldKey)}`;
      await rebuild(db, s, s.oldKey, merge);
    }
  });
}

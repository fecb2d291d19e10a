// Opens the database for the configured mode: SQLite in the data dir (embedded default) or
// PostgreSQL when SWITCHYARD_DATABASE_URL is set. Nothing outside store/ knows which one it got.
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, type Driver, Kysely, SqliteDialect } from 'kysely';
import type { Config } from '../config.ts';
import { CurrentSchemaPostgresDialect } from './pg-introspector.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;
export type Dialect = 'sqlite' | 'postgres';

export interface OpenedDb {
  db: Db;
  dialect: Dialect;
  /** Human-readable location without credentials, for the startup log line. */
  where: string;
}

// pg is loaded only in PostgreSQL mode: the embedded default never needs it (~15 MB resident
// loaded alone).
let pgModule: Promise<typeof import('pg').default> | undefined;

function loadPg(): Promise<typeof import('pg').default> {
  pgModule ??= import('pg').then(({ default: pg }) => {
    // COUNT(*) and other int8 results arrive as strings from pg by default; our counts fit a double.
    pg.types.setTypeParser(20, (v: string) => Number.parseInt(v, 10));
    return pg;
  });
  return pgModule;
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`invalid schema name: ${name}`);
  return `"${name}"`;
}

async function openPostgres(url: string, schema: string | null): Promise<OpenedDb> {
  const pg = await loadPg();
  if (schema !== null) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // With PostgreSQL gone a query fails after this instead of waiting for a connection forever.
    connectionTimeoutMillis: 5000,
    ...(schema !== null ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
  });
  // An idle connection that breaks (PostgreSQL restarted or unreachable) is reported here; without a
  // listener that would end the process. The pool drops it, and the next query that needs the
  // database fails and is retried by its owner (log writer, mirrors' poll, jobs).
  pool.on('error', () => {});
  // The same for a connection that breaks while it is checked out between two statements (a
  // transaction, a job claim): its next statement fails, and the pool drops it on release.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  const where = new URL(url);
  return { db, dialect: 'postgres', where: `postgres://${where.host}${where.pathname}` };
}

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');

/**
 * Transactions take SQLite's write lock when they begin. A deferred one that reads first and then
 * writes cannot wait for the lock: if another connection (the log worker thread, another worker
 * process, the CLI) committed in between, its snapshot is stale and SQLite answers SQLITE_BUSY at
 * once, without the busy timeout, which reached callers as a 500. Taking the lock first makes the
 * transaction wait its turn like a single statement does.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(BEGIN_IMMEDIATE);
    };
    return driver;
  }
}

function openSqlite(dataDir: string): OpenedDb {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'switchyard.db');
  const sqlite = new SQLite(file);
  // Logged prompts live here: owner-only, like master.key. SQLite gives the -wal and -shm files
  // the database file's mode when it creates them; ones left by an older version are fixed too.
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  sqlite.pragma('journal_mode = WAL');
  // The CLI may write while the server runs; wait for the lock instead of failing at once.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
  return { db, dialect: 'sqlite', where: file };
}

export async function openDb(config: Config): Promise<OpenedDb> {
  if (config.databaseUrl !== null) return openPostgres(config.databaseUrl, config.pgSchema);
  return openSqlite(config.dataDir);
}

// Lists the storage back-ends a shared store suite must run on: SQLite always, PostgreSQL when
// reachable. Each opened store gets its own temp dir / fresh schema so parallel files never collide.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.ts';
import { openStore, type StoreHandle } from '../../src/store/index.ts';

export const TEST_PG_URL = process.env.SWITCHYARD_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDb {
  config: Config;
  handle: StoreHandle;
  /** Closes the store and removes the temp dir or drops the schema. */
  dispose(): Promise<void>;
}

export interface DialectTarget {
  name: 'sqlite' | 'postgres';
  /** Why the target is skipped locally, or undefined when it runs. */
  skip: string | undefined;
  open(overrides?: Partial<Config>): Promise<TestDb>;
}

let pgProbe: Promise<string | undefined> | undefined;

async function probePostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    const why = `PostgreSQL not reachable at ${TEST_PG_URL}: ${(err as Error).message}`;
    // In CI a missing PostgreSQL is a failure, never a silent skip.
    if (process.env.CI === 'true') throw new Error(why);
    return why;
  } finally {
    await client.end().catch(() => {});
  }
}

export function randomSchema(): string {
  return `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'switchyard-test-'));
}

async function openSqlite(overrides: Partial<Config> = {}): Promise<TestDb> {
  const dataDir = tempDataDir();
  const config = loadConfig({}, { dataDir, databaseUrl: null, logLevel: 'silent', ...overrides });
  const handle = await openStore(config);
  return {
    config,
    handle,
    async dispose() {
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function openPostgres(overrides: Partial<Config> = {}): Promise<TestDb> {
  const dataDir = tempDataDir();
  const schema = randomSchema();
  const config = loadConfig(
    {},
    { dataDir, databaseUrl: TEST_PG_URL, pgSchema: schema, logLevel: 'silent', ...overrides },
  );
  const handle = await openStore(config);
  return {
    config,
    handle,
    async dispose() {
      await handle.close();
      await dropSchema(schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resolve once per test file: `for (const d of await dialects()) describe(d.name, { skip: d.skip }, ...)`. */
export async function dialects(): Promise<DialectTarget[]> {
  pgProbe ??= probePostgres();
  const pgSkip = await pgProbe;
  if (pgSkip) process.stderr.write(`[store tests] skipping postgres: ${pgSkip}\n`);
  return [
    { name: 'sqlite', skip: undefined, open: openSqlite },
    { name: 'postgres', skip: pgSkip, open: openPostgres },
  ];
}

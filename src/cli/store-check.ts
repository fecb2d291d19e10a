// Commands that work on an existing store (keys, mcp) must never create one: opening the store
// migrates it and the services bootstrap an organization, so a mistyped SWITCHYARD_DATA_DIR would
// otherwise leave a fresh, empty store behind and appear to work. Only `serve` and `migrate` create.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { openDb } from '../store/db.ts';
import { createOrgKeyStore } from '../store/org-keys.ts';

/** The PostgreSQL URL with its password masked, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Where this config's store lives, as a person would look for it. */
export function storeLocation(config: Config): string {
  if (config.databaseUrl !== null) return `${redactUrl(config.databaseUrl)} (SWITCHYARD_DATABASE_URL)`;
  return `${join(config.dataDir, 'switchyard.db')} (data dir ${config.dataDir}: SWITCHYARD_DATA_DIR, default ./data)`;
}

/** No such table, on either dialect: the database exists but was never set up by Switchyard. */
function isMissingTable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === '42P01' || (typeof message === 'string' && message.includes('no such table'));
}

/**
 * Null when the store exists and holds an organization (what the first `serve` creates), else the
 * reason, naming where it looked. Reads only: the SQLite file is checked before anything opens it,
 * and the schema is not migrated here.
 */
export async function missingStore(config: Config): Promise<string | null> {
  const where = storeLocation(config);
  const hint =
    '\nStart the gateway once (`switchyard serve`) to create it, or point SWITCHYARD_DATA_DIR / SWITCHYARD_DATABASE_URL at an existing store.';
  if (config.databaseUrl === null && !existsSync(join(config.dataDir, 'switchyard.db'))) {
    return `no Switchyard store found at ${where}${hint}`;
  }
  let opened: Awaited<ReturnType<typeof openDb>>;
  try {
    opened = await openDb(config);
  } catch (err) {
    return `cannot open the store at ${where}: ${err instanceof Error ? err.message : String(err)}`;
  }
  try {
    const org = await createOrgKeyStore(opened.db).firstOrg();
    return org ? null : `the store at ${where} has no organization yet${hint}`;
  } catch (err) {
    if (isMissingTable(err))
      return `no Switchyard store found at ${where}: the database holds no Switchyard tables${hint}`;
    return `cannot read the store at ${where}: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    await opened.db.destroy();
  }
}

/**
 * The master key decrypts stored provider credentials; generating a new one here would only make
 * every stored credential unreadable, so a command that needs it refuses instead.
 */
export function missingMasterKey(config: Config): string | null {
  if (config.masterKey !== null) return null;
  const path = join(config.dataDir, 'master.key');
  if (existsSync(path)) return null;
  return `no master key: SWITCHYARD_MASTER_KEY is unset and ${path} does not exist (the key the store's provider credentials are encrypted with)`;
}

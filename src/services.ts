// Everything a route handler needs, created once per gateway instance by buildApp().
import type { DestinationStream, Logger } from 'pino';
import type { BootstrapResult } from './store/bootstrap.ts';
import { bootstrap } from './store/bootstrap.ts';
import { PrincipalCache } from './live/principals.ts';
import type { Config } from './config.ts';
import { CredentialCache } from './live/credentials.ts';
import { loadMasterKey } from './crypto/master-key.ts';
import { SecretBox } from './crypto/secretbox.ts';
import { createLogger } from './util/logger.ts';
import { WorkerLogWriter } from './logs/worker-writer.ts';
import { LogWriter, type RequestLogSink } from './logs/writer.ts';
import { ProjectCache } from './live/projects.ts';
import type { Credential, VendorId } from './providers/types.ts';
import { RoutingRuntime } from './routing/runtime.ts';
import type { Db, Dialect } from './store/db.ts';
import { openStore, type Stores } from './store/index.ts';

export type VerifyResult = { ok: true } | { ok: false; status: number; message: string };
/** Checks a provider key with the vendor's cheapest authenticated call before it is stored. */
export type KeyVerifier = (vendor: VendorId, credential: Credential) => Promise<VerifyResult>;

export interface Services {
  config: Config;
  logger: Logger;
  db: Db;
  dialect: Dialect;
  stores: Stores;
  secrets: SecretBox;
  /** API key -> principal, from memory. */
  principals: PrincipalCache;
  /** Decrypted provider credentials, from memory: `resolve(orgId, vendor)`, `get(orgId, id)`. */
  credentials: CredentialCache;
  /** Projects and their settings, from memory: `cached(projectId)`. */
  projects: ProjectCache;
  /** Request log writer: `enqueue(row)` (never awaited), `flush()`. */
  logs: RequestLogSink;
  keyVerifier: KeyVerifier;
  /** Routing configs (cached by slug) and candidate health. */
  routing: RoutingRuntime;
  bootstrap: BootstrapResult;
  /** Stops refreshers, flushes the log writer and closes the database. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  keyVerifier?: KeyVerifier;
  logDestination?: DestinationStream;
  logger?: Logger;
}

const MASTER_KEY_CHECK = 'master_key_check';

// The real verifier lives with the provider adapters; loading it lazily keeps the management
// plane usable (and its tests fast) without pulling every adapter in at start.
const defaultVerifier: KeyVerifier = async (vendor, credential) => {
  const mod = await import('./providers/verify.ts');
  return mod.verifyProviderKey(vendor, credential);
};

async function checkMasterKey(stores: Stores, box: SecretBox): Promise<void> {
  const sealed = await stores.orgKeys.getMeta(MASTER_KEY_CHECK);
  if (sealed === undefined) {
    await stores.orgKeys.setMeta(MASTER_KEY_CHECK, box.encrypt('switchyard', MASTER_KEY_CHECK));
    return;
  }
  try {
    box.decrypt(sealed, MASTER_KEY_CHECK);
  } catch {
    throw new Error(
      'SWITCHYARD_MASTER_KEY does not match the key this database was created with; provider credentials cannot be decrypted',
    );
  }
}

export async function createServices(config: Config, opts: ServiceOptions = {}): Promise<Services> {
  const logger = opts.logger ?? createLogger(config.logLevel, opts.logDestination);
  const master = loadMasterKey(config);
  if (master.source === 'generated') {
    logger.info({ path: master.path }, 'generated a new master key for provider credentials (mode 0600)');
    if (config.databaseUrl !== null) {
      logger.warn('SWITCHYARD_MASTER_KEY is unset with PostgreSQL: every instance must share the same master key');
    }
  }
  const secrets = new SecretBox(master.key);
  const handle = await openStore(config);
  const { stores } = handle;
  try {
    await checkMasterKey(stores, secrets);
    const boot = await bootstrap(stores, config);

    const principals = new PrincipalCache(stores.orgKeys, logger, config.refreshIntervalMs);
    const credentials = new CredentialCache(stores.providers, secrets, logger, config.refreshIntervalMs);
    credentials.warm(await stores.providers.listAllActive());
    const projects = new ProjectCache(stores.projects, logger, config.refreshIntervalMs);
    // Every row's updated_at is after the empty string, so this loads all projects.
    projects.warm(await stores.projects.changedSince(''));
    // SQLite inserts cost CPU on whichever thread runs them, so that mode writes logs from a worker.
    const inThread = new LogWriter(stores.logs, logger);
    const logs: RequestLogSink =
      handle.dialect === 'sqlite' ? new WorkerLogWriter(handle.where, logger, inThread) : inThread;
    const routing = await RoutingRuntime.start(stores.routingConfigs, logger, config.refreshIntervalMs);

    let closed: Promise<void> | undefined;
    return {
      config,
      logger,
      db: handle.db,
      dialect: handle.dialect,
      stores,
      secrets,
      principals,
      credentials,
      projects,
      logs,
      keyVerifier: opts.keyVerifier ?? defaultVerifier,
      routing,
      bootstrap: boot,
      close() {
        closed ??= (async () => {
          principals.stop();
          credentials.stop();
          projects.stop();
          routing.stop();
          await logs.close();
          await handle.close();
        })();
        return closed;
      },
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

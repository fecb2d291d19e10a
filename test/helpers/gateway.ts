// Starts a real gateway on loopback for integration tests: temp data dir (SQLite) by default, or
// PostgreSQL in a fresh schema when `postgres: true` / a database URL is given.
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { KeyVerifier } from '../../src/services.ts';
import { dropSchema, randomSchema, TEST_PG_URL, tempDataDir } from './dialects.ts';

export interface GatewayOptions {
  /** Reuse a data dir (restart tests); otherwise a fresh temp dir that close() removes. */
  dataDir?: string;
  /** Use PostgreSQL (TEST_PG_URL, or the given URL) in a fresh schema. */
  postgres?: boolean | string;
  /** Reuse a schema (restart tests on PostgreSQL). */
  pgSchema?: string;
  adminKey?: string;
  keyVerifier?: KeyVerifier;
  logDestination?: DestinationStream;
  config?: Partial<Config>;
}

export interface Gateway {
  /** `http://127.0.0.1:<port>` */
  url: string;
  adminKey: string;
  app: FastifyInstance;
  dataDir: string;
  pgSchema: string | null;
  /** Stops the server; `keepData` leaves the data dir / schema for a restart. */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

const DEFAULT_ADMIN_KEY = 'sy-test-admin-key-0123456789';

/**
 * A verifier without network: a key containing "bad" is refused, one containing "unreachable" finds
 * no vendor to ask, any other is accepted.
 */
export const fakeKeyVerifier: KeyVerifier = async (_vendor, credential) => {
  if (credential.apiKey.includes('bad'))
    return { ok: false, outcome: 'refused', status: 401, message: 'Incorrect API key provided' };
  if (credential.apiKey.includes('unreachable'))
    return { ok: false, outcome: 'unreachable', status: 502, message: 'connect ECONNREFUSED' };
  return { ok: true };
};

export async function startGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const ownsDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? tempDataDir();
  const pgUrl = opts.postgres === true ? TEST_PG_URL : typeof opts.postgres === 'string' ? opts.postgres : null;
  const pgSchema = pgUrl !== null ? (opts.pgSchema ?? randomSchema()) : null;
  const adminKey = opts.adminKey ?? DEFAULT_ADMIN_KEY;
  const app = await buildApp({
    env: {},
    config: {
      dataDir,
      port: 0,
      host: '127.0.0.1',
      databaseUrl: pgUrl,
      pgSchema,
      adminKey,
      logLevel: opts.logDestination ? 'trace' : 'silent',
      ...opts.config,
    },
    keyVerifier: opts.keyVerifier ?? fakeKeyVerifier,
    logDestination: opts.logDestination,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    adminKey,
    app,
    dataDir,
    pgSchema,
    async close(closeOpts = {}) {
      await app.close();
      if (closeOpts.keepData) return;
      if (pgSchema !== null && opts.pgSchema === undefined) await dropSchema(pgSchema);
      if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** fetch with the admin key and JSON handling. */
export async function call(
  gw: Pick<Gateway, 'url' | 'adminKey'>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; headers: Headers; text: string }> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${gw.adminKey}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers, text };
}

// Starts the gateway the way a user runs it (`node bin/switchyard.js serve`, embedded SQLite in a
// temp data dir, request logging on) and registers the fake upstream as its openai and anthropic
// providers through the management API.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, type Proc, startProc, waitForHttp } from './procs.ts';

export const ADMIN_KEY = 'sy-bench-admin-key-not-a-secret-0000000000000';

export interface Gateway {
  proc: Proc;
  url: string;
  stop(): Promise<void>;
}

export interface GatewayOptions {
  fakeUrl: string;
  /** When set, the gateway runs under `node --cpu-prof` writing into this folder. */
  cpuProfDir?: string;
  /** Another checkout to run instead of this one (`npm run bench:compare`); its dist/ must be built. */
  root?: string;
  /** More SWITCHYARD_* settings (bench/scale.ts: PostgreSQL, Redis, workers). */
  env?: Record<string, string>;
  /** Skip adding the fake's providers (a second instance on a database that already has them). */
  noProviders?: boolean;
  /** Flags for node itself, before the script (bench/gc.ts: `--trace-gc-nvp`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
}

const ROOT = resolve(import.meta.dirname, '..');

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'sy-bench-data-'));
  // `serve` exits through process.exit on SIGTERM, which is when --cpu-prof writes its file
  const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
  if (opts.nodeArgs) nodeArgs.push(...opts.nodeArgs);
  const proc = startProc(
    'gateway',
    process.execPath,
    [...nodeArgs, join(opts.root ?? ROOT, 'bin/switchyard.js'), 'serve'],
    {
      ...process.env,
      SWITCHYARD_PORT: String(port),
      SWITCHYARD_HOST: '127.0.0.1',
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_ADMIN_KEY: ADMIN_KEY,
      SWITCHYARD_LOG_LEVEL: 'warn',
      ...opts.env,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await proc.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHttp(`${url}/manage/v1/providers`, proc, 90_000, auth());
    if (!opts.noProviders) {
      await addProvider(url, 'openai', `${opts.fakeUrl}/openai/v1`);
      await addProvider(url, 'anthropic', `${opts.fakeUrl}/anthropic`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { proc, url, stop };
}

function auth(): Record<string, string> {
  return { authorization: `Bearer ${ADMIN_KEY}` };
}

async function addProvider(gatewayUrl: string, vendor: string, baseUrl: string): Promise<void> {
  const res = await fetch(`${gatewayUrl}/manage/v1/providers`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ vendor, name: `bench-${vendor}`, api_key: 'sk-bench', base_url: baseUrl }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`adding the ${vendor} provider failed: ${res.status} ${text}`);
}

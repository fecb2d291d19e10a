// `switchyard demo`: the fake upstream and a gateway wired to it in one process, with every vendor
// registered and one routing config per strategy, so that everything can be tried without a vendor
// account. The demo runs on its own SQLite store (a temporary one unless --data-dir is given) whatever
// SWITCHYARD_DATABASE_URL / SWITCHYARD_DATA_DIR say: fake credentials must never land in a real store.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { buildApp } from '../app.ts';
import { generateApiKey } from '../crypto/api-keys.ts';
import { seedDemo } from './demo-setup.ts';
import { demoText } from './demo-snippets.ts';
import { ensurePortFree, portInUse } from './ports.ts';
import { untilSignal } from './signals.ts';

export interface DemoOptions {
  /** Gateway port, 0 = any free port. */
  port: number;
  /** Fake upstream port, 0 = any free port. */
  upstreamPort: number;
  dataDir?: string;
}

export async function demoCommand(opts: DemoOptions): Promise<number> {
  // Listening from the start, so that a Ctrl+C during the set-up still removes the temporary store.
  const stopped = untilSignal();
  const temporary = opts.dataDir === undefined;
  const dataDir = opts.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'switchyard-demo-')) : resolve(opts.dataDir);
  if (!temporary) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // A fresh key per run, registered on every start (a kept --data-dir collects one per run), unless
  // the user chose theirs.
  const adminKey = process.env.SWITCHYARD_ADMIN_KEY?.trim() || generateApiKey();

  let fake: FakeUpstream | undefined;
  let app: FastifyInstance | undefined;
  const shutdown = async () => {
    await app?.close();
    await fake?.close();
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await ensurePortFree(opts.upstreamPort, '127.0.0.1', '--upstream-port');
    fake = await startFakeUpstream({ port: opts.upstreamPort, record: false });
    app = await buildApp({
      config: {
        dataDir,
        port: opts.port,
        host: '127.0.0.1',
        databaseUrl: null,
        redisUrl: null,
        adminKey,
        masterKey: null,
        // Quiet unless asked: the snippets are the output that matters here.
        logLevel: process.env.SWITCHYARD_LOG_LEVEL ? undefined : 'warn',
      },
    });
    try {
      await app.listen({ port: opts.port, host: '127.0.0.1' });
    } catch (err) {
      if (portInUse(err)) throw new Error(`port ${opts.port} is in use: choose another --port (0 = any free port)`);
      throw err;
    }
    const gatewayUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const seeded = await seedDemo(gatewayUrl, adminKey, fake.url);
    process.stdout.write(demoText({ gatewayUrl, fakeUrl: fake.url, adminKey, dataDir, temporary, seeded }));
  } catch (err) {
    await shutdown();
    throw err;
  }

  const signal = await stopped;
  process.stdout.write(`\n${signal}: stopping the gateway and the fake upstream\n`);
  await shutdown();
  return 0;
}

// A gateway in its own process, started the way a user starts it (`bin/switchyard.js serve`), for
// tests that need signals, process exit codes or the process's own memory figures.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GatewayProcess {
  url: string;
  key: string;
  dataDir: string;
  child: ChildProcess;
  /** Resolves with the exit code once the process is gone. */
  exited: Promise<number | null>;
  /** Registers the fake upstream as the openai credential. */
  addOpenAi(fakeUrl: string): Promise<number>;
  /** SIGTERM, wait for the exit, remove the data dir. */
  stop(): Promise<void>;
}

/** A port nothing listens on right now (for a server started later, or one meant to be down). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** `opts.dataDir` reuses a data dir (a restart); by default each gateway gets a new one. */
export async function spawnGateway(
  env: Record<string, string> = {},
  opts: { dataDir?: string } = {},
): Promise<GatewayProcess> {
  const key = 'sy-process-test-key-000000000000';
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'sy-proc-'));
  // The port is free when picked, but another process of a parallel test run can take it before
  // the gateway binds it: a gateway that exits while starting is started again on a new port.
  for (let attempt = 1; ; attempt++) {
    const started = await startOnce(key, dataDir, env);
    if (started !== undefined) return started;
    if (attempt === 3) throw new Error('the gateway exited while starting, three times');
  }
}

async function startOnce(
  key: string,
  dataDir: string,
  env: Record<string, string>,
): Promise<GatewayProcess | undefined> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['bin/switchyard.js', 'serve'], {
    env: {
      ...process.env,
      SWITCHYARD_PORT: String(port),
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_ADMIN_KEY: key,
      SWITCHYARD_LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', process.env.SWITCHYARD_TEST_GATEWAY_STDERR ? 'inherit' : 'pipe', 'pipe'],
  });
  // The last of its error log lines (stdout, at the error level set above) and stderr, to say why
  // a start or a setup call failed.
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-2000);
    if (process.env.SWITCHYARD_TEST_GATEWAY_STDERR) process.stderr.write(chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null || child.signalCode !== null) {
      process.stderr.write(`gateway on port ${port} exited while starting: ${output}\n`);
      return undefined;
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    key,
    dataDir,
    child,
    exited,
    async addOpenAi(fakeUrl) {
      const r = await fetch(`${url}/manage/v1/providers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ vendor: 'openai', name: 'fake', api_key: 'sk-proc', base_url: `${fakeUrl}/openai/v1` }),
      });
      // Said on failure, with what the gateway last wrote: a bare status explains nothing.
      if (r.status !== 201)
        process.stderr.write(`adding the fake provider: ${r.status} ${await r.text()}\n${output}\n`);
      return r.status;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

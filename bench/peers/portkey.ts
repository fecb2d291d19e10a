// The Portkey peer: installed on demand into bench/peers/portkey (its own package.json pins the
// gateway and @hono/node-server 1.13.5, whose 1.19.x line breaks Portkey's streaming) and started
// headless on a free port.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort, type Proc, startProc, waitForHttp } from '../procs.ts';

const DIR = resolve(import.meta.dirname, 'portkey');
const ENTRY = join(DIR, 'node_modules/@portkey-ai/gateway/build/start-server.js');

export interface Peer {
  name: string;
  version: string;
  url: string;
  proc: Proc;
  /** Headers that make the peer forward to the fake's openai mount. */
  headers(fakeUrl: string): Record<string, string>;
}

export async function installPortkey(log: (s: string) => void): Promise<void> {
  if (existsSync(ENTRY)) return;
  log('installing @portkey-ai/gateway into bench/peers/portkey ...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await promisify(execFile)(npm, ['install', '--prefix', DIR, '--no-audit', '--no-fund'], { maxBuffer: 16 << 20 });
}

export async function startPortkey(log: (s: string) => void): Promise<Peer> {
  await installPortkey(log);
  const port = await freePort();
  const proc = startProc('portkey', process.execPath, [ENTRY, `--port=${port}`, '--headless']);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/`, proc, 60_000);
  return {
    name: 'portkey',
    version: '1.15.2',
    url,
    proc,
    headers: (fakeUrl) => ({
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${fakeUrl}/openai/v1`,
      authorization: 'Bearer sk-bench',
    }),
  };
}

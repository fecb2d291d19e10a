// Starts and stops the processes of a bench run: the fake upstream (its own process), the floor
// proxy in front of it (issue 32), the gateway, and the optional peer.
import { join, resolve } from 'node:path';
import { type Gateway, type GatewayOptions, startGateway } from './gateway.ts';
import { type Peer, startPortkey } from './peers/portkey.ts';
import { freePort, type Proc, startProc, waitForHttp } from './procs.ts';

export const ROOT = resolve(import.meta.dirname, '..');

export interface Fake {
  url: string;
  proc: Proc;
}

export async function startFake(): Promise<Fake> {
  const port = await freePort();
  const proc = startProc('fake-upstream', process.execPath, [
    '--import',
    'tsx',
    join(ROOT, 'bench/fake-main.ts'),
    String(port),
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/__requests`, proc);
  return { url, proc };
}

/** The bare proxy (bench/floor-proxy.ts) forwarding every path to the fake, in its own process. */
export async function startFloor(fakeUrl: string, nodeArgs: string[] = []): Promise<Fake> {
  const port = await freePort();
  const proc = startProc('floor-proxy', process.execPath, [
    ...nodeArgs,
    '--import',
    'tsx',
    join(ROOT, 'bench/floor-proxy.ts'),
    String(port),
    fakeUrl,
  ]);
  const url = `http://127.0.0.1:${port}`;
  // a GET passes through to the fake's request list, so an answer proves both hops are up
  await waitForHttp(`${url}/__requests`, proc);
  return { url, proc };
}

/** Everything a run started, stopped in reverse order whatever happened. */
export class Processes {
  fake: Fake | null = null;
  floor: Fake | null = null;
  gateway: Gateway | null = null;
  peer: Peer | null = null;

  async startFake(): Promise<Fake> {
    this.fake = await startFake();
    return this.fake;
  }

  async startFloor(fakeUrl: string): Promise<Fake> {
    this.floor = await startFloor(fakeUrl);
    return this.floor;
  }

  async startGateway(opts: GatewayOptions): Promise<Gateway> {
    this.gateway = await startGateway(opts);
    return this.gateway;
  }

  async startPeer(name: 'portkey', log: (s: string) => void): Promise<Peer> {
    if (name !== 'portkey') throw new Error(`unknown peer ${name}`);
    this.peer = await startPortkey(log);
    return this.peer;
  }

  async stopAll(): Promise<void> {
    await this.peer?.proc.stop().catch(() => {});
    await this.gateway?.stop().catch(() => {});
    await this.floor?.proc.stop().catch(() => {});
    await this.fake?.proc.stop().catch(() => {});
  }
}

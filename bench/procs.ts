// Child processes of a bench run: each server gets its own process (and so its own core when
// the machine has one free); every one is stopped by its own pid when the run ends.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

export interface Proc {
  name: string;
  pid: number;
  child: ChildProcess;
  /** The last few KB the process printed, for error messages. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const KEEP = 8192;

export function startProc(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Proc {
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (b: Buffer) => {
    tail = (tail + b.toString('utf8')).slice(-KEEP);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  if (child.pid === undefined) throw new Error(`${name}: could not start ${cmd}`);
  const pid = child.pid;
  return {
    name,
    pid,
    child,
    output: () => tail,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const addr = srv.address();
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

/** Polls until the URL answers with any HTTP status; fails early when the process dies. */
export async function waitForHttp(url: string, proc: Proc, timeoutMs = 60_000, headers: Record<string, string> = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null)
      throw new Error(`${proc.name} exited (${proc.child.exitCode}):\n${proc.output()}`);
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  throw new Error(`${proc.name} did not answer on ${url} within ${timeoutMs} ms:\n${proc.output()}`);
}

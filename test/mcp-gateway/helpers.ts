// Shared by the MCP gateway tests: server-everything as a child over HTTP, and an SDK client of /mcp/v1.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const require = createRequire(import.meta.url);
export const everythingBin = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface EverythingServer {
  port: number;
  child: ChildProcess;
  stop(): void;
}

/** server-everything over `streamableHttp` (at /mcp) or `sse` (at /sse), answering once it listens. */
export async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<EverythingServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingBin, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
  });
  for (let i = 0; i < 200; i++) {
    // Any answer (a 404 for this path) means it listens; the SSE path would hold the stream open.
    const up = await fetch(`http://127.0.0.1:${port}/ready`).then(
      () => true,
      () => false,
    );
    if (up) return { port, child, stop: () => child.kill() };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error(`server-everything (${mode}) did not start`);
}

export async function connectClient(url: string, key: string, fetch?: FetchLike): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp/v1`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      ...(fetch ? { fetch } : {}),
    }),
  );
  return client;
}

export const textOf = (r: CallToolResult): string =>
  r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('');

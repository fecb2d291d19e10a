// The fake upstream: all seven vendors on one port, one path prefix each (DESIGN.md section 7).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleAnthropic } from './anthropic/index.ts';
import { handleAzure } from './azure/index.ts';
import { handleBedrock } from './bedrock/index.ts';
import { FakeContext, type FakeOptions, type FakeState, type RecordedRequest, type VendorHandler } from './context.ts';
import { handleGoogle } from './google/index.ts';
import { openaiHandler } from './openai/index.ts';

export interface FakeUpstream {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Requests received so far (newest last), when recording is on. */
  requests(): RecordedRequest[];
  clearRequests(): void;
  close(): Promise<void>;
}

const MOUNTS: Array<[string, VendorHandler]> = [
  ['/openai/v1', openaiHandler('openai')],
  ['/together/v1', openaiHandler('together')],
  ['/fireworks/inference/v1', openaiHandler('fireworks')],
  ['/azure', handleAzure],
  ['/anthropic', handleAnthropic],
  ['/google', handleGoogle],
  ['/bedrock', handleBedrock],
];

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'x-amz-security-token']);
const MAX_RECORDED = 2000;

function maskHeaders(h: NodeJS.Dict<string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    const s = Array.isArray(v) ? v.join(', ') : v;
    out[k] = SECRET_HEADERS.has(k) ? mask(s) : s;
  }
  return out;
}

/** Keeps a short prefix and the last 4 characters, enough for tests to tell which key arrived. */
function mask(v: string): string {
  if (v.length <= 12) return '***';
  return `${v.slice(0, 10)}***${v.slice(-4)}`;
}

export async function startFakeUpstream(options: FakeOptions = {}): Promise<FakeUpstream> {
  const opts: Required<FakeOptions> = {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    awsSecret: options.awsSecret ?? 'test-secret',
    record: options.record ?? true,
    batchStepMs: options.batchStepMs ?? 200,
  };
  const recorded: RecordedRequest[] = [];
  const state: FakeState = {
    opts,
    origin: '',
    stores: new Map(),
    store<T>(name: string, init: () => T): T {
      let v = this.stores.get(name) as T | undefined;
      if (v === undefined) {
        v = init();
        this.stores.set(name, v);
      }
      return v;
    },
  };

  const server: Server = createServer((req, res) => {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
    if (path === '/__requests') {
      if (req.method === 'DELETE') recorded.length = 0;
      const body = JSON.stringify({ data: req.method === 'DELETE' ? [] : recorded });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
      return;
    }
    const mount = MOUNTS.find(([p]) => path === p || path.startsWith(`${p}/`));
    if (!mount) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no vendor mounted at ${path}` } }));
      return;
    }
    const ctx = new FakeContext(req, res, path.slice(mount[0].length) || '/', query, state, mount[0]);
    if (opts.record) {
      const entry: RecordedRequest = {
        at: Date.now(),
        method: req.method ?? 'GET',
        path,
        query: Object.fromEntries(query),
        headers: maskHeaders(req.headers),
        body: undefined,
      };
      recorded.push(entry);
      if (recorded.length > MAX_RECORDED) recorded.shift();
      ctx.body().then(
        (b) => {
          entry.body = describeBody(b, req.headers['content-type']);
        },
        () => {},
      );
    }
    mount[1](ctx).catch((err: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake upstream bug: ${String(err)}` } }));
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host, resolve));
  const port = (server.address() as AddressInfo).port;
  state.origin = `http://${opts.host}:${port}`;
  return {
    url: state.origin,
    port,
    requests: () => recorded.slice(),
    clearRequests: () => {
      recorded.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function describeBody(b: Buffer, contentType: string | undefined): unknown {
  if (b.length === 0) return undefined;
  const ct = contentType ?? '';
  if (ct.includes('json') || b[0] === 0x7b || b[0] === 0x5b) {
    try {
      return JSON.parse(b.toString('utf8'));
    } catch {
      /* fall through */
    }
  }
  if (ct.startsWith('multipart/') || ct.includes('octet') || ct.includes('eventstream'))
    return `<binary ${b.length} bytes>`;
  return b.toString('utf8');
}

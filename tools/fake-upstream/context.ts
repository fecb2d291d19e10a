// Request context handed to each vendor emulation: body helpers, response helpers and shared state.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RecordedRequest {
  at: number;
  method: string;
  /** Full path including the vendor prefix, without the query string. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else text, else a `<binary N bytes>` marker. */
  body: unknown;
}

export interface FakeOptions {
  port?: number;
  host?: string;
  /** Secret access key every SigV4 signature is checked against (any access key id). */
  awsSecret?: string;
  /** Keep a log of requests for GET /__requests (on by default; the bench turns it off). */
  record?: boolean;
  /** How long each alpha/beta batch phase lasts (ms); tests shorten it. */
  batchStepMs?: number;
}

export interface FakeState {
  opts: Required<FakeOptions>;
  /** `http://host:port`, for URLs the fake hands out (e.g. Anthropic `results_url`). */
  origin: string;
  /** Free-form per-vendor stores (files, batches, responses, prompt caches). */
  stores: Map<string, unknown>;
  store<T>(name: string, init: () => T): T;
}

export class FakeContext {
  private bodyPromise?: Promise<Buffer>;
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** Path after the vendor prefix (e.g. `/chat/completions` under `/openai/v1`). */
    readonly path: string,
    readonly query: URLSearchParams,
    readonly state: FakeState,
    /** The vendor prefix this request came in under, e.g. `/together/v1`. */
    readonly prefix: string,
  ) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  }

  body(): Promise<Buffer> {
    if (!this.bodyPromise) {
      this.bodyPromise = new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        this.req.on('data', (c: Buffer) => chunks.push(c));
        this.req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
        this.req.on('error', reject);
      });
    }
    return this.bodyPromise;
  }

  async text(): Promise<string> {
    return (await this.body()).toString('utf8');
  }

  /** Parsed JSON body, or `undefined` when the body is not valid JSON (vendors answer 400 then). */
  async json(): Promise<unknown> {
    const t = await this.text();
    try {
      return JSON.parse(t);
    } catch {
      return undefined;
    }
  }

  send(status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
    if (this.res.headersSent) return;
    this.res.writeHead(status, { 'content-length': String(Buffer.byteLength(body)), ...headers });
    this.res.end(body);
  }

  sendJson(status: number, value: unknown, headers: Record<string, string> = {}): void {
    this.send(status, JSON.stringify(value), { 'content-type': 'application/json', ...headers });
  }

  /** Starts an SSE response; returns a writer. Each call writes one event (JSON data on one line). */
  sse(headers: Record<string, string> = {}): SseWriter {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...headers,
    });
    return new SseWriter(this.res);
  }
}

export class SseWriter {
  constructor(private readonly res: ServerResponse) {}
  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }
  /** Writes `event:` (when given) and `data:` lines and the blank separator. */
  event(data: unknown, event?: string): void {
    if (this.closed) return;
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    this.res.write(event ? `event: ${event}\ndata: ${payload}\n\n` : `data: ${payload}\n\n`);
  }
  end(): void {
    if (!this.closed) this.res.end();
  }
  /** Drops the connection without a clean end (simulates a broken upstream). */
  destroy(): void {
    this.res.destroy();
  }
}

export type VendorHandler = (ctx: FakeContext) => Promise<void>;

// One registered tool server as this instance reaches it: an SDK client, connected on first use.
// A stdio server is a child process: when it dies it is started again after a backoff that grows
// with each death in a row, and a call that arrives before then starts it at once. Its stderr
// goes to the gateway log. Lists are cached until the server says they changed.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { McpServerRecord } from '../store/mcp-servers.ts';

export type Health = 'unknown' | 'up' | 'down';
export type ListKind = 'tools' | 'resources' | 'prompts';

/** The stored server with its secrets opened (headers, env). */
export interface UpstreamSpec extends Pick<McpServerRecord, 'id' | 'orgId' | 'name' | 'transport' | 'url' | 'command'> {
  args: readonly string[];
  headers: Record<string, string>;
  env: Record<string, string>;
  /** The record's updated_at: a changed server is reconnected. */
  version: string;
}

export interface UpstreamDeps {
  logger: Logger;
  connectTimeoutMs: number;
  /** Every HTTP request to the server (./guarded-fetch.ts: the address policy at connect time). */
  fetch: FetchLike;
  onListChanged(kind: ListKind): void;
  onHealth(previous: Health, next: Health, reason: string | null): void;
}

/** A server that cannot be reached now; calls answer it as a tool error. */
export class UpstreamUnavailable extends Error {}

const MAX_BACKOFF_MS = 30_000;
const FIRST_BACKOFF_MS = 200;

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UpstreamUnavailable(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class Upstream {
  health: Health = 'unknown';
  /** Round trip of the last tools/list, ms. */
  latencyMs: number | null = null;
  lastError: string | null = null;
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #tools: Promise<Tool[]> | undefined;
  #deaths = 0;
  #retryAt = 0;
  #restartTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #pid: number | null = null;
  readonly #progress = new Map<string, (p: { progress: number; total?: number; message?: string }) => void>();
  #nextToken = 0;

  constructor(
    readonly spec: UpstreamSpec,
    readonly deps: UpstreamDeps,
  ) {}

  /** The child's pid while a stdio server runs. */
  get pid(): number | null {
    return this.#client === undefined ? null : this.#pid;
  }

  client(): Promise<Client> {
    if (this.#closed) return Promise.reject(new UpstreamUnavailable('the gateway is stopping'));
    if (this.#client) return Promise.resolve(this.#client);
    if (!this.#connecting) {
      if (Date.now() < this.#retryAt) {
        const wait = Math.ceil((this.#retryAt - Date.now()) / 1000);
        return Promise.reject(new UpstreamUnavailable(`${this.lastError ?? 'unreachable'}; retrying in ${wait} s`));
      }
      this.#connecting = this.#connect().finally(() => {
        this.#connecting = undefined;
      });
    }
    return this.#connecting;
  }

  /** The server's tools, as it listed them (every page). */
  tools(): Promise<Tool[]> {
    this.#tools ??= this.#listTools().catch((err: unknown) => {
      this.#tools = undefined;
      throw err;
    });
    return this.#tools;
  }

  async #listTools(): Promise<Tool[]> {
    const client = await this.client();
    const started = performance.now();
    const out: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await withTimeout(
        client.listTools(cursor === undefined ? {} : { cursor }),
        this.deps.connectTimeoutMs,
        'tools/list',
      );
      out.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined && out.length < 10_000);
    this.latencyMs = Math.round((performance.now() - started) * 100) / 100;
    this.#setHealth('up', null);
    return out;
  }

  async #connect(): Promise<Client> {
    // The SDK and its zod schemas (~25 MB resident) load with the first connection, not at start:
    // most gateways never register a tool server.
    const [{ Client }, sdk] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const { ProgressNotificationSchema, PromptListChangedNotificationSchema } = sdk;
    const { ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } = sdk;
    const client = new Client({ name: 'switchyard-mcp-gateway', version: '1.0.0' }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      this.#tools = undefined;
      this.deps.onListChanged('tools');
    });
    // Progress is routed here by our own tokens rather than through the SDK's per-request
    // callback: the SDK drops a progress notification that arrives in the same read as the result.
    client.setNotificationHandler(ProgressNotificationSchema, async (n) => {
      const { progressToken, ...rest } = n.params;
      this.#progress.get(String(progressToken))?.(rest);
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () =>
      this.deps.onListChanged('resources'),
    );
    client.setNotificationHandler(PromptListChangedNotificationSchema, async () => this.deps.onListChanged('prompts'));
    client.onclose = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#tools = undefined;
      if (!this.#closed && this.spec.transport === 'stdio') this.#died();
    };
    try {
      const transport = await this.#transport();
      await withTimeout(client.connect(transport), this.deps.connectTimeoutMs, 'connect');
    } catch (err) {
      void client.close().catch(() => {});
      this.#deaths++;
      this.#retryAt = Date.now() + this.#backoff();
      this.#setHealth('down', reasonOf(err));
      throw new UpstreamUnavailable(reasonOf(err));
    }
    if (this.#closed) {
      await client.close();
      throw new UpstreamUnavailable('the gateway is stopping');
    }
    this.#client = client;
    this.#retryAt = 0;
    return client;
  }

  async #transport(): Promise<Transport> {
    const { spec } = this;
    if (spec.transport === 'stdio') {
      const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const t = new StdioClientTransport({
        command: spec.command ?? '',
        args: [...spec.args],
        env: { ...getDefaultEnvironment(), ...spec.env },
        stderr: 'pipe',
      });
      const log = this.deps.logger.child({ mcp_server: spec.name });
      t.stderr?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim() !== '') log.info({ stderr: line }, 'mcp server stderr');
      });
      const start = t.start.bind(t);
      // The pid exists once the process is spawned, which start() does.
      t.start = async () => {
        await start();
        this.#pid = t.pid;
      };
      return t;
    }
    const url = new URL(spec.url ?? '');
    const opts = { requestInit: { headers: spec.headers }, fetch: this.deps.fetch };
    if (spec.transport === 'sse') {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      return new SSEClientTransport(url, opts);
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(url, opts);
  }

  #backoff(): number {
    return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, this.#deaths - 1));
  }

  #died(): void {
    this.#deaths++;
    const delay = this.#backoff();
    this.#setHealth('down', 'the server process exited');
    this.deps.logger.warn({ mcp_server: this.spec.name, restart_in_ms: delay }, 'mcp stdio server exited');
    clearTimeout(this.#restartTimer);
    this.#restartTimer = setTimeout(() => {
      this.client().then(
        () => this.tools(),
        () => {},
      );
    }, delay);
    this.#restartTimer.unref();
  }

  /**
   * A progress token for one call and a release for it. Released a turn after the call settled, so
   * notifications read together with the result are still delivered.
   */
  progressToken(onProgress: (p: { progress: number; total?: number; message?: string }) => void): {
    token: string;
    release(): void;
  } {
    const token = `sy-${++this.#nextToken}`;
    this.#progress.set(token, onProgress);
    return { token, release: () => void setImmediate(() => this.#progress.delete(token)) };
  }

  /** A call or list succeeded: the server is up and its deaths so far are forgiven. */
  markUp(): void {
    this.#deaths = 0;
    this.#setHealth('up', null);
  }

  markDown(reason: string): void {
    this.#setHealth('down', reason);
  }

  #setHealth(next: Health, reason: string | null): void {
    this.lastError = reason;
    if (next === this.health) return;
    const previous = this.health;
    this.health = next;
    // A first connect is not news; every later transition is.
    if (!(previous === 'unknown' && next === 'up')) this.deps.onHealth(previous, next, reason);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#restartTimer);
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    await client?.close().catch(() => {});
  }
}

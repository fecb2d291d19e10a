// The MCP gateway: which registered servers and tools a caller may use, and each tool call routed
// to its server, admitted against the key's, project's and server's rate limits, logged as a
// request-log row and counted. Connections (./upstream.ts) are per instance and made on first use.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { SecretBox } from '../crypto/secretbox.ts';
import type { Principal } from '../live/principals.ts';
import type {
  AdmitRequest,
  AdmitResult,
  MaybePromise,
  RateCheck,
  RateLimits,
  SettleRequest,
} from '../ports/counters.ts';
import type { McpServerRecord, McpServerStore } from '../store/mcp-servers.ts';
import { CACHE_NOT_CONSULTED } from '../store/request-log-row.ts';
import type { RequestLogRow } from '../store/request-logs.ts';
import { newId } from '../util/ids.ts';
import { modelMatches } from '../util/model-patterns.ts';
import { type AddressPolicy, mcpFetch } from './guarded-fetch.ts';
import { federatedName, serverOf } from './names.ts';
import { type Health, type ListKind, Upstream, UpstreamUnavailable } from './upstream.ts';

export type CallOutcome = 'ok' | 'tool_error' | 'error' | 'unavailable' | 'refused';

export interface GatewayDeps {
  store: McpServerStore;
  secrets: SecretBox;
  logger: Logger;
  /** The request log (never awaited). */
  log(row: RequestLogRow): void;
  keepBodies(projectId: string | null): boolean;
  maxBodyChars: number;
  counters: {
    admit(req: AdmitRequest): MaybePromise<AdmitResult>;
    settle(req: SettleRequest): unknown;
  };
  projectLimits(projectId: string): RateLimits | null;
  count(server: string, tool: string, outcome: CallOutcome, seconds: number): void;
  healthChanged(server: McpServerRecord, previous: Health, next: Health, reason: string | null): void;
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
  /** Checked on every connection to a server URL; the always-refused part applies without it. */
  addressPolicy?: AddressPolicy;
}

/** A server as a caller may use it: its record, the connection and the tools it exposes to this caller. */
export interface ServerTools {
  server: McpServerRecord;
  tools: Array<{ name: string; tool: Tool }>;
}

export type ListChangedListener = (orgId: string, kind: ListKind) => void;

export function secretsAad(orgId: string, serverId: string): string {
  return `mcp:${orgId}:${serverId}`;
}

/** Progress notifications do not extend a call's deadline (see Upstream.progressToken); this one is long. */
const PROGRESS_CALL_TIMEOUT_MS = 15 * 60_000;

/** How long a project's list of usable servers is reused, and how many such lists are kept. */
const USABLE_TTL_MS = 1000;
const USABLE_KEPT = 10_000;

const bytes = (v: unknown): number => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v) ?? ''));
const toolError = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

export class McpGateway {
  readonly #d: GatewayDeps;
  readonly #upstreams = new Map<string, Upstream>();
  readonly #usable = new Map<string, { until: number; list: Promise<McpServerRecord[]> }>();
  readonly #listeners = new Set<ListChangedListener>();
  readonly #http: ReturnType<typeof mcpFetch>;

  constructor(deps: GatewayDeps) {
    this.#d = deps;
    this.#http = mcpFetch(deps.addressPolicy ?? { denyPrivate: false });
  }

  onListChanged(listener: ListChangedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The connection of a server, replaced when its record changed since it was made. */
  upstream(server: McpServerRecord): Upstream {
    const found = this.#upstreams.get(server.id);
    if (found && found.spec.version === server.updatedAt) return found;
    if (found) void found.close();
    const secrets = this.#openSecrets(server);
    const up = new Upstream(
      {
        id: server.id,
        orgId: server.orgId,
        name: server.name,
        transport: server.transport,
        url: server.url,
        command: server.command,
        args: server.args,
        headers: secrets.headers,
        env: secrets.env,
        version: server.updatedAt,
      },
      {
        logger: this.#d.logger,
        connectTimeoutMs: this.#d.connectTimeoutMs ?? 10_000,
        fetch: this.#http.fetch,
        onListChanged: (kind) => {
          for (const l of this.#listeners) l(server.orgId, kind);
        },
        onHealth: (previous, next, reason) => this.#d.healthChanged(server, previous, next, reason),
      },
    );
    this.#upstreams.set(server.id, up);
    return up;
  }

  /**
   * A server was registered, changed or deleted: its connection (a stdio child too) is dropped and
   * the sessions of its organization hear that their tool lists changed.
   */
  async serverChanged(orgId: string, serverId: string): Promise<void> {
    this.#usable.clear();
    const up = this.#upstreams.get(serverId);
    this.#upstreams.delete(serverId);
    await up?.close();
    for (const l of this.#listeners) l(orgId, 'tools');
  }

  #openSecrets(server: McpServerRecord): { headers: Record<string, string>; env: Record<string, string> } {
    const parsed: unknown = JSON.parse(
      this.#d.secrets.decrypt(server.secretsCiphertext, secretsAad(server.orgId, server.id)),
    );
    const p = parsed as { headers?: Record<string, string>; env?: Record<string, string> };
    return { headers: p.headers ?? {}, env: p.env ?? {} };
  }

  /**
   * Enabled servers the caller's project may use. Remembered for a second per org and project, so a
   * busy agent's tool calls do not each wait on the database; a change made on this instance is seen
   * at once (serverChanged), one made on another within the second.
   */
  servers(p: Principal): Promise<McpServerRecord[]> {
    const key = `${p.orgId}\u0000${p.projectId ?? ''}`;
    const now = performance.now();
    const found = this.#usable.get(key);
    if (found && found.until > now) return found.list;
    if (this.#usable.size >= USABLE_KEPT) this.#usable.clear();
    const list = this.#d.store.listUsable(p.orgId, p.projectId);
    this.#usable.set(key, { until: now + USABLE_TTL_MS, list });
    list.catch(() => this.#usable.delete(key));
    return list;
  }

  /** The tools of every usable server that the server's and the key's patterns allow. Down servers are left out. */
  async listTools(p: Principal): Promise<ServerTools[]> {
    const servers = await this.servers(p);
    const keyPatterns = p.toolAllow ?? null;
    const lists = await Promise.all(
      servers.map(async (server): Promise<ServerTools> => {
        try {
          const all = await this.upstream(server).tools();
          return { server, tools: visible(server, all, keyPatterns) };
        } catch (err) {
          this.#d.logger.warn({ err, mcp_server: server.name }, 'an mcp server could not list its tools');
          return { server, tools: [] };
        }
      }),
    );
    return lists;
  }

  /** A server a caller may use, by its name; undefined when there is none (or it is another project's). */
  async serverNamed(p: Principal, name: string): Promise<McpServerRecord | undefined> {
    return (await this.servers(p)).find((s) => s.name === name);
  }

  async callTool(
    p: Principal,
    name: string,
    args: Record<string, unknown> | undefined,
    opts: { onProgress?: (progress: ProgressEvent) => void; signal?: AbortSignal },
  ): Promise<CallToolResult> {
    const started = performance.now();
    const serverName = serverOf(name);
    const server = serverName === undefined ? undefined : await this.serverNamed(p, serverName);
    const base = { p, server, name, tool: name, args, started };
    if (!server) return this.#finish(base, 'refused', 404, toolError(`Unknown tool '${name}'`));
    const up = this.upstream(server);
    let tool: Tool | undefined;
    try {
      tool = visible(server, await up.tools(), p.toolAllow ?? null).find((t) => t.name === name)?.tool;
    } catch (err) {
      const message = `MCP server '${server.name}' is unavailable: ${reasonOf(err)}`;
      return this.#finish(base, 'unavailable', 503, toolError(message));
    }
    if (!tool) return this.#finish(base, 'refused', 403, toolError(`Tool '${name}' is not available to this API key`));
    const named = { ...base, tool: tool.name };
    const admitted = await this.#admit(p, server);
    if (!admitted.ok) return this.#finish(named, 'refused', 429, toolError(admitted.message));
    const progress = opts.onProgress ? up.progressToken(opts.onProgress) : undefined;
    try {
      const client = await up.client();
      const result = (await client.callTool(
        {
          name: tool.name,
          ...(args === undefined ? {} : { arguments: args }),
          ...(progress ? { _meta: { progressToken: progress.token } } : {}),
        },
        undefined,
        {
          // A call that reports progress may run long; one that does not gets the plain deadline.
          timeout: progress ? PROGRESS_CALL_TIMEOUT_MS : (this.#d.callTimeoutMs ?? 60_000),
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
      )) as CallToolResult;
      up.markUp();
      return this.#finish(named, result.isError === true ? 'tool_error' : 'ok', 200, result);
    } catch (err) {
      // Loaded already by the connection that threw (the SDK is not imported at start).
      const { McpError } = await import('@modelcontextprotocol/sdk/types.js');
      if (err instanceof McpError) {
        this.#finish(named, 'error', 502, undefined, { code: err.code, message: err.message });
        throw err;
      }
      up.markDown(reasonOf(err));
      const message = `MCP server '${server.name}' is unavailable: ${reasonOf(err)}`;
      return this.#finish(named, 'unavailable', 503, toolError(message));
    } finally {
      progress?.release();
      admitted.settle?.();
    }
  }

  async #admit(
    p: Principal,
    server: McpServerRecord,
  ): Promise<{ ok: true; settle?: () => void } | { ok: false; message: string }> {
    const rates: RateCheck[] = [];
    if (p.rateLimits) rates.push({ key: `k:${p.keyId}`, scope: 'api_key', limits: p.rateLimits });
    const project = p.projectId === null ? null : this.#d.projectLimits(p.projectId);
    if (project && p.projectId !== null) rates.push({ key: `p:${p.projectId}`, scope: 'project', limits: project });
    // The server's own limit counts every caller's calls to it; the port has no scope for it, so
    // it is told apart by its key.
    if (server.rateLimits) rates.push({ key: `mcp:${server.id}`, scope: 'project', limits: server.rateLimits });
    if (rates.length === 0) return { ok: true };
    const req: AdmitRequest = { now: Date.now(), tokens: 0, costUsd: 0, rates, budgets: [] };
    const res = await this.#d.counters.admit(req);
    if (!res.ok) {
      const r = res.refusal;
      if (r.kind === 'budget' || r.kind === 'unavailable') return { ok: false, message: `Refused: ${r.kind}` };
      const who = r.key.startsWith('mcp:')
        ? `MCP server '${server.name}'`
        : r.scope === 'api_key'
          ? 'API key'
          : 'project';
      const retry = r.retryAfterMs === null ? '' : `; retry after ${Math.ceil(r.retryAfterMs / 1000)} s`;
      return { ok: false, message: `Rate limit exceeded: the ${who} allows ${r.limit} ${r.kind}${retry}` };
    }
    return {
      ok: true,
      settle: () => void this.#d.counters.settle({ now: Date.now(), admitted: req, actualTokens: 0, actualUsd: 0 }),
    };
  }

  #finish(
    c: {
      p: Principal;
      server: McpServerRecord | undefined;
      name: string;
      tool: string;
      args: unknown;
      started: number;
    },
    outcome: CallOutcome,
    status: number,
    result: CallToolResult | undefined,
    rpcError?: { code: number; message: string },
  ): CallToolResult {
    const latencyMs = performance.now() - c.started;
    const serverName = c.server?.name ?? serverOf(c.name) ?? '';
    this.#d.count(serverName, c.tool, outcome, latencyMs / 1000);
    const keep = this.#d.keepBodies(c.p.projectId);
    const errorText = result?.isError === true ? textOf(result) : null;
    this.#d.log({
      id: newId('req'),
      requestType: 'mcp_tool_call',
      orgId: c.p.orgId,
      projectId: c.p.projectId,
      apiKeyId: c.p.keyId,
      endUser: null,
      tags: null,
      traceId: null,
      conversationId: null,
      modelRequested: c.name,
      modelUsed: c.tool,
      provider: 'mcp',
      credentialId: c.server?.id ?? null,
      statusCode: status,
      latencyMs: Math.round(latencyMs * 100) / 100,
      ttfbMs: null,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      costUsd: null,
      error: rpcError ?? (errorText === null ? null : { type: outcome, message: errorText }),
      decisionTrace: {
        mcp: {
          server: serverName,
          server_id: c.server?.id ?? null,
          tool: c.tool,
          outcome,
          argument_bytes: bytes(c.args),
          result_bytes: bytes(result),
        },
      },
      requestBody: keep ? this.#cut(c.args ?? {}) : null,
      responseBody: keep && result ? this.#cut(result) : null,
      createdAt: new Date().toISOString(),
      replayOf: null,
      ...CACHE_NOT_CONSULTED,
    });
    return result ?? toolError('error');
  }

  #cut(v: unknown): string {
    const text = JSON.stringify(v) ?? '';
    const max = this.#d.maxBodyChars;
    return text.length <= max ? text : `${text.slice(0, max)}…[truncated: ${text.length} characters]`;
  }

  /** Tools of one server, health and latency, for GET /manage/v1/mcp-servers/{id}/tools. */
  async probe(
    server: McpServerRecord,
  ): Promise<{ tools: Tool[]; health: Health; latencyMs: number | null; error: string | null }> {
    const up = this.upstream(server);
    try {
      const tools = await up.tools();
      return { tools, health: up.health, latencyMs: up.latencyMs, error: null };
    } catch (err) {
      return { tools: [], health: up.health, latencyMs: up.latencyMs, error: reasonOf(err) };
    }
  }

  /** The running child of a stdio server, if any (tests stop it from outside). */
  pidOf(serverId: string): number | null {
    return this.#upstreams.get(serverId)?.pid ?? null;
  }

  async close(): Promise<void> {
    const all = [...this.#upstreams.values()];
    this.#upstreams.clear();
    await Promise.all(all.map((u) => u.close()));
    await this.#http.close();
  }
}

export interface ProgressEvent {
  progress: number;
  total?: number;
  message?: string;
}

const reasonOf = (err: unknown): string =>
  err instanceof UpstreamUnavailable || err instanceof Error ? err.message : String(err);

function textOf(r: CallToolResult): string {
  const parts = r.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);
  return parts.join('\n').slice(0, 1000);
}

/** The tools of `server` a key with `keyPatterns` may see, under their federated names. */
export function visible(
  server: McpServerRecord,
  tools: readonly Tool[],
  keyPatterns: string[] | null,
): Array<{ name: string; tool: Tool }> {
  const out: Array<{ name: string; tool: Tool }> = [];
  for (const tool of tools) {
    if (!modelMatches(server.allowedTools, tool.name)) continue;
    const name = federatedName(server.name, tool.name);
    if (!modelMatches(keyPatterns, name)) continue;
    out.push({ name, tool });
  }
  return out;
}

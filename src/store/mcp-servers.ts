// Registered MCP tool servers (issue 37). The caller seals header and env values; this store keeps
// the ciphertext and the names beside it. Deletion is hard: log rows name the server by name, not id.
import { fromJsonText, isRecord } from '../util/json.ts';
import { nowIso } from '../util/time.ts';
import type { Db } from './db.ts';
import { getOrgRow } from './org-table.ts';

export type McpTransport = 'streamable_http' | 'sse' | 'stdio';
export const MCP_TRANSPORTS: readonly McpTransport[] = ['streamable_http', 'sse', 'stdio'];

export interface McpRateLimits {
  rpm?: number;
  concurrency?: number;
}

export interface McpServerRecord {
  id: string;
  orgId: string;
  name: string;
  transport: McpTransport;
  url: string | null;
  command: string | null;
  args: string[];
  headerNames: string[];
  envNames: string[];
  /** Sealed JSON `{headers, env}`. */
  secretsCiphertext: string;
  /** Null: every project of the org may use it. */
  projectId: string | null;
  /** Tool-name glob patterns (the server's own names); null for every tool. */
  allowedTools: string[] | null;
  rateLimits: McpRateLimits | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export type NewMcpServer = Omit<McpServerRecord, 'createdAt' | 'updatedAt'>;
export type McpServerPatch = Partial<Omit<McpServerRecord, 'id' | 'orgId' | 'createdAt' | 'updatedAt'>>;

export interface McpServerStore {
  create(s: NewMcpServer): Promise<McpServerRecord>;
  get(orgId: string, id: string): Promise<McpServerRecord | undefined>;
  /** Oldest id first. */
  list(orgId: string, page: { afterId?: string; limit: number }): Promise<McpServerRecord[]>;
  /** Enabled servers a caller of `projectId` may use (org-wide ones and its project's). */
  listUsable(orgId: string, projectId: string | null): Promise<McpServerRecord[]>;
  update(orgId: string, id: string, patch: McpServerPatch): Promise<McpServerRecord | undefined>;
  delete(orgId: string, id: string): Promise<McpServerRecord | undefined>;
}

type McpServersTable = {
  id: string;
  org_id: string;
  name: string;
  transport: string;
  url: string | null;
  command: string | null;
  args: string;
  header_names: string;
  env_names: string;
  secrets_ciphertext: string;
  project_id: string | null;
  allowed_tools: string | null;
  rate_limits: string | null;
  enabled: number;
  created_at: string;
  updated_at: string;
};

type Tables = {
  mcp_servers: McpServersTable;
  api_keys: { id: string; org_id: string; allowed_tools: string | null };
};

const strings = (text: string | null): string[] | null => {
  const v = fromJsonText(text);
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : null;
};

function rateLimitsOf(text: string | null): McpRateLimits | null {
  const v = fromJsonText(text);
  if (!isRecord(v)) return null;
  const out: McpRateLimits = {};
  for (const f of ['rpm', 'concurrency'] as const) {
    const n = v[f];
    if (typeof n === 'number' && Number.isFinite(n) && n > 0) out[f] = n;
  }
  return Object.keys(out).length > 0 ? out : null;
}

const transportOf = (t: string): McpTransport =>
  (MCP_TRANSPORTS as readonly string[]).includes(t) ? (t as McpTransport) : 'streamable_http';

function toRecord(r: McpServersTable): McpServerRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    transport: transportOf(r.transport),
    url: r.url,
    command: r.command,
    args: strings(r.args) ?? [],
    headerNames: strings(r.header_names) ?? [],
    envNames: strings(r.env_names) ?? [],
    secretsCiphertext: r.secrets_ciphertext,
    projectId: r.project_id,
    allowedTools: strings(r.allowed_tools),
    rateLimits: rateLimitsOf(r.rate_limits),
    enabled: Number(r.enabled) === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const jsonOrNull = (v: object | null): string | null => (v === null ? null : JSON.stringify(v));

function toColumns(p: McpServerPatch): Partial<McpServersTable> {
  const out: Partial<McpServersTable> = {};
  if (p.name !== undefined) out.name = p.name;
  if (p.transport !== undefined) out.transport = p.transport;
  if (p.url !== undefined) out.url = p.url;
  if (p.command !== undefined) out.command = p.command;
  if (p.args !== undefined) out.args = JSON.stringify(p.args);
  if (p.headerNames !== undefined) out.header_names = JSON.stringify(p.headerNames);
  if (p.envNames !== undefined) out.env_names = JSON.stringify(p.envNames);
  if (p.secretsCiphertext !== undefined) out.secrets_ciphertext = p.secretsCiphertext;
  if (p.projectId !== undefined) out.project_id = p.projectId;
  if (p.allowedTools !== undefined) out.allowed_tools = jsonOrNull(p.allowedTools);
  if (p.rateLimits !== undefined) out.rate_limits = jsonOrNull(p.rateLimits);
  if (p.enabled !== undefined) out.enabled = p.enabled ? 1 : 0;
  return out;
}

export function createMcpServerStore(baseDb: Db): McpServerStore {
  const db = baseDb.withTables<Tables>();
  const get = getOrgRow(baseDb, 'mcp_servers', toRecord);

  return {
    async create(s) {
      const now = nowIso();
      const row = { ...(toColumns(s) as McpServersTable), id: s.id, org_id: s.orgId, created_at: now, updated_at: now };
      await db.insertInto('mcp_servers').values(row).execute();
      return toRecord(row);
    },
    get,
    async list(orgId, page) {
      let q = db.selectFrom('mcp_servers').selectAll().where('org_id', '=', orgId);
      if (page.afterId !== undefined) q = q.where('id', '>', page.afterId);
      return (await q.orderBy('id').limit(page.limit).execute()).map(toRecord);
    },
    async listUsable(orgId, projectId) {
      const rows = await db
        .selectFrom('mcp_servers')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('enabled', '=', 1)
        .where((eb) =>
          projectId === null
            ? eb('project_id', 'is', null)
            : eb.or([eb('project_id', 'is', null), eb('project_id', '=', projectId)]),
        )
        .orderBy('name')
        .execute();
      return rows.map(toRecord);
    },
    async update(orgId, id, patch) {
      const res = await db
        .updateTable('mcp_servers')
        .set({ ...toColumns(patch), updated_at: nowIso() })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return undefined;
      return get(orgId, id);
    },
    async delete(orgId, id) {
      const found = await get(orgId, id);
      if (!found) return undefined;
      await db.deleteFrom('mcp_servers').where('org_id', '=', orgId).where('id', '=', id).execute();
      return found;
    },
  };
}

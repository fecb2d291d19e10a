// Registered MCP tool servers (issue 37): list, get, create, update, delete, what a server offers now,
// and the older way to set an API key's tool patterns (create and PATCH of the key take them too). Header and env values are write-only: sealed with the master
// key, never shown; their names are. URLs pass the same address policy as webhook endpoints, and a
// stdio command must be on SWITCHYARD_MCP_STDIO_COMMANDS.
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import { secretsAad, visible } from '../mcp-gateway/gateway.ts';
import { SERVER_NAME } from '../mcp-gateway/names.ts';
import { isUniqueViolation } from '../store/index.ts';
import type { McpServerRecord, McpTransport } from '../store/mcp-servers.ts';
import { checkEndpointUrl } from '../util/address-policy.ts';
import { newId } from '../util/ids.ts';
import { notFound, requireOrgKey } from './access.ts';
import { AllowedTools, KeyIdParams, manageableKey } from './api-key-schemas.ts';
import { pageAfter } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';
import type { Services } from './services.ts';

const TAG = 'mcp';

const ServerId = Type.Object({ server_id: Type.String({ minLength: 1, maxLength: 100 }) });
const Name = Type.String({
  minLength: 1,
  maxLength: 40,
  description: 'Lowercase [a-z0-9_-], unique per organization; tools are exposed as <name>__<tool>',
});
const Transport = Type.Union([Type.Literal('streamable_http'), Type.Literal('sse'), Type.Literal('stdio')]);
const StringMap = Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 4000 }), { maxProperties: 50 });
const Patterns = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 50 });
const RateLimits = Type.Object(
  { rpm: Type.Optional(Type.Integer({ minimum: 1 })), concurrency: Type.Optional(Type.Integer({ minimum: 1 })) },
  { additionalProperties: false },
);

const Fields = {
  name: Name,
  transport: Transport,
  url: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2048 }))),
  headers: Type.Optional(StringMap),
  command: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 1000 }))),
  args: Type.Optional(Type.Array(Type.String({ maxLength: 4000 }), { maxItems: 100 })),
  env: Type.Optional(StringMap),
  project_id: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  allowed_tools: Type.Optional(Nullable(Patterns)),
  rate_limits: Type.Optional(Nullable(RateLimits)),
  enabled: Type.Optional(Type.Boolean()),
};

const McpServer = Type.Object({
  id: Type.String(),
  object: Type.Literal('mcp_server'),
  name: Type.String(),
  transport: Transport,
  url: Nullable(Type.String()),
  header_names: Type.Array(Type.String(), { description: 'Headers sent to the server (values are never shown)' }),
  command: Nullable(Type.String()),
  args: Type.Array(Type.String()),
  env_names: Type.Array(Type.String()),
  project_id: Nullable(Type.String()),
  allowed_tools: Nullable(Type.Array(Type.String())),
  rate_limits: Nullable(RateLimits),
  enabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

function view(s: McpServerRecord) {
  return {
    id: s.id,
    object: 'mcp_server' as const,
    name: s.name,
    transport: s.transport,
    url: s.url,
    header_names: s.headerNames,
    command: s.command,
    args: s.args,
    env_names: s.envNames,
    project_id: s.projectId,
    allowed_tools: s.allowedTools,
    rate_limits: s.rateLimits,
    enabled: s.enabled,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

const invalid = (param: string, message: string) => new GatewayError('invalid_request', { message, param });

/** Refuses what could never run: a URL outside the address policy, a command off the allow-list. */
function checkTarget(svc: Services, transport: McpTransport, url: string | null, command: string | null): void {
  if (transport === 'stdio') {
    if (command === null) throw invalid('command', 'command is required for a stdio server');
    if (!svc.config.mcpStdioCommands.includes(command)) {
      throw invalid('command', `command '${command}' is not in SWITCHYARD_MCP_STDIO_COMMANDS`);
    }
    return;
  }
  if (url === null) throw invalid('url', `url is required for a ${transport} server`);
  const verdict = checkEndpointUrl(url, { denyPrivate: svc.config.webhookDenyPrivate });
  if (!verdict.ok) throw invalid('url', verdict.reason);
}

function checkName(name: string): string {
  if (!SERVER_NAME.test(name))
    throw invalid('name', "name must be lowercase [a-z0-9_-], start with a letter or digit and hold no '__'");
  return name;
}

async function checkProject(svc: Services, orgId: string, projectId: string | null): Promise<void> {
  if (projectId === null) return;
  const p = await svc.stores.projects.get(orgId, projectId);
  if (!p || p.deletedAt !== null)
    throw new GatewayError('invalid_project', { vars: { id: projectId }, param: 'project_id' });
}

const seal = (svc: Services, orgId: string, id: string, headers: Record<string, string>, env: Record<string, string>) =>
  svc.secrets.encrypt(JSON.stringify({ headers, env }), secretsAad(orgId, id));

const nameTaken = (name: string) => invalid('name', `an MCP server named '${name}' already exists`);

const listServers = defineOperation({
  name: 'list_mcp_servers',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/mcp-servers',
  tag: TAG,
  summary: 'List registered MCP tool servers (never their header or env values)',
  input: { query: Type.Object({ ...PageQuery }, { additionalProperties: false }) },
  output: pageOf(McpServer),
  async handler({ svc, principal, query }) {
    const orgId = requireOrgKey(principal);
    return pageAfter(query, (page) => svc.stores.mcpServers.list(orgId, page), view);
  },
});

const getServer = defineOperation({
  name: 'get_mcp_server',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/mcp-servers/{server_id}',
  tag: TAG,
  summary: 'Get a registered MCP tool server',
  input: { params: ServerId },
  output: McpServer,
  async handler({ svc, principal, params }) {
    const s = await svc.stores.mcpServers.get(requireOrgKey(principal), params.server_id);
    if (!s) throw notFound('MCP server', params.server_id);
    return view(s);
  },
});

const createServer = defineOperation({
  name: 'create_mcp_server',
  method: 'POST',
  role: 'admin',
  path: '/manage/v1/mcp-servers',
  tag: TAG,
  summary: 'Register an MCP tool server (streamable_http, sse, or stdio for allow-listed commands)',
  status: 201,
  input: { body: Type.Object(Fields, { additionalProperties: false }) },
  output: McpServer,
  async handler({ svc, principal, body }) {
    const orgId = requireOrgKey(principal);
    const name = checkName(body.name);
    const url = body.url ?? null;
    const command = body.command ?? null;
    checkTarget(svc, body.transport, url, command);
    await checkProject(svc, orgId, body.project_id ?? null);
    const id = newId('mcp');
    const headers = body.headers ?? {};
    const env = body.env ?? {};
    try {
      const s = await svc.stores.mcpServers.create({
        id,
        orgId,
        name,
        transport: body.transport,
        url: body.transport === 'stdio' ? null : url,
        command: body.transport === 'stdio' ? command : null,
        args: body.args ?? [],
        headerNames: Object.keys(headers),
        envNames: Object.keys(env),
        secretsCiphertext: seal(svc, orgId, id, headers, env),
        projectId: body.project_id ?? null,
        allowedTools: body.allowed_tools ?? null,
        rateLimits: body.rate_limits ?? null,
        enabled: body.enabled ?? true,
      });
      await svc.mcpGateway.serverChanged(orgId, s.id);
      return view(s);
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(name);
      throw err;
    }
  },
});

const updateServer = defineOperation({
  name: 'update_mcp_server',
  method: 'PATCH',
  role: 'admin',
  path: '/manage/v1/mcp-servers/{server_id}',
  tag: TAG,
  summary: 'Change a registered MCP server; headers or env, when given, replace the stored ones whole',
  input: {
    params: ServerId,
    body: Type.Object(
      { ...Fields, name: Type.Optional(Name), transport: Type.Optional(Transport) },
      { additionalProperties: false },
    ),
  },
  output: McpServer,
  async handler({ svc, principal, params, body }) {
    const orgId = requireOrgKey(principal);
    const current = await svc.stores.mcpServers.get(orgId, params.server_id);
    if (!current) throw notFound('MCP server', params.server_id);
    const transport = body.transport ?? current.transport;
    const url = body.url !== undefined ? body.url : current.url;
    const command = body.command !== undefined ? body.command : current.command;
    checkTarget(svc, transport, url, command);
    if (body.project_id !== undefined) await checkProject(svc, orgId, body.project_id);
    let secretsCiphertext: string | undefined;
    if (body.headers !== undefined || body.env !== undefined) {
      const old = JSON.parse(svc.secrets.decrypt(current.secretsCiphertext, secretsAad(orgId, current.id))) as {
        headers: Record<string, string>;
        env: Record<string, string>;
      };
      secretsCiphertext = seal(svc, orgId, current.id, body.headers ?? old.headers, body.env ?? old.env);
    }
    try {
      const s = await svc.stores.mcpServers.update(orgId, params.server_id, {
        ...(body.name !== undefined ? { name: checkName(body.name) } : {}),
        transport,
        url: transport === 'stdio' ? null : url,
        command: transport === 'stdio' ? command : null,
        ...(body.args !== undefined ? { args: body.args } : {}),
        ...(body.headers !== undefined ? { headerNames: Object.keys(body.headers) } : {}),
        ...(body.env !== undefined ? { envNames: Object.keys(body.env) } : {}),
        ...(secretsCiphertext !== undefined ? { secretsCiphertext } : {}),
        ...(body.project_id !== undefined ? { projectId: body.project_id } : {}),
        ...(body.allowed_tools !== undefined ? { allowedTools: body.allowed_tools } : {}),
        ...(body.rate_limits !== undefined ? { rateLimits: body.rate_limits } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      });
      if (!s) throw notFound('MCP server', params.server_id);
      await svc.mcpGateway.serverChanged(s.orgId, s.id);
      return view(s);
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(body.name ?? current.name);
      throw err;
    }
  },
});

const deleteServer = defineOperation({
  name: 'delete_mcp_server',
  method: 'DELETE',
  role: 'admin',
  path: '/manage/v1/mcp-servers/{server_id}',
  tag: TAG,
  summary: 'Delete a registered MCP server (a running stdio server is stopped)',
  input: { params: ServerId },
  output: McpServer,
  async handler({ svc, principal, params }) {
    const s = await svc.stores.mcpServers.delete(requireOrgKey(principal), params.server_id);
    if (!s) throw notFound('MCP server', params.server_id);
    await svc.mcpGateway.serverChanged(s.orgId, s.id);
    return view(s);
  },
});

const ServerTools = Type.Object({
  object: Type.Literal('mcp_server_tools'),
  server_id: Type.String(),
  health: Type.Union([Type.Literal('unknown'), Type.Literal('up'), Type.Literal('down')]),
  latency_ms: Nullable(Type.Number({ description: 'Round trip of the last tools/list' })),
  error: Nullable(Type.String()),
  tools: Type.Array(
    Type.Object(
      {
        name: Type.String({ description: 'As federated: <server>__<tool>' }),
        tool: Type.String(),
        description: Nullable(Type.String()),
      },
      { additionalProperties: true },
    ),
  ),
});

const listServerTools = defineOperation({
  name: 'list_mcp_server_tools',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/mcp-servers/{server_id}/tools',
  tag: TAG,
  summary: 'What a server offers now (after its allowed_tools), with its health and the tools/list latency',
  input: { params: ServerId },
  output: ServerTools,
  async handler({ svc, principal, params }) {
    const s = await svc.stores.mcpServers.get(requireOrgKey(principal), params.server_id);
    if (!s) throw notFound('MCP server', params.server_id);
    const probe = await svc.mcpGateway.probe(s);
    return {
      object: 'mcp_server_tools' as const,
      server_id: s.id,
      health: probe.health,
      latency_ms: probe.latencyMs,
      error: probe.error,
      tools: visible(s, probe.tools, null).map(({ name, tool }) => ({
        name,
        tool: tool.name,
        description: tool.description ?? null,
      })),
    };
  },
});

const setKeyTools = defineOperation({
  name: 'set_api_key_allowed_tools',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/api-keys/{key_id}/allowed-tools',
  tag: TAG,
  summary:
    'Set the glob patterns over <server>__<tool> a key may see and call through /mcp/v1 (null: every tool); an alias of PATCH /manage/v1/api-keys/{key_id} with allowed_tools',
  input: {
    params: KeyIdParams,
    body: Type.Object({ allowed_tools: Nullable(AllowedTools) }, { additionalProperties: false }),
  },
  output: Type.Object({ key_id: Type.String(), allowed_tools: Nullable(Type.Array(Type.String())) }),
  async handler({ svc, principal, params, body }) {
    // As for any other change to a key: at least its role, and its project for a project caller.
    await manageableKey(svc, principal, params.key_id);
    const key = await svc.stores.orgKeys.updateKey(principal.orgId, params.key_id, {
      allowedTools: body.allowed_tools,
    });
    if (!key) throw notFound('API key', params.key_id);
    return { key_id: key.id, allowed_tools: key.allowedTools };
  },
});

export const mcpServerOperations: Operation[] = [
  listServers,
  getServer,
  createServer,
  updateServer,
  deleteServer,
  listServerTools,
  setKeyTools,
];

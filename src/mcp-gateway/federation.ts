// The MCP server one /mcp/v1 session talks to: the caller's tools, resources and prompts of every
// server it may use, under federated names, each request forwarded to the owning server and its
// answer handed back as the server gave it. A viewer may list but not call.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../live/principals.ts';
import { mayCallModels } from '../ports/roles.ts';
import type { McpServerRecord } from '../store/mcp-servers.ts';
import type { McpGateway } from './gateway.ts';
import { SEPARATOR, serverOf } from './names.ts';

type Kind = 'resources' | 'resourceTemplates' | 'prompts';

/** Calls `read` on every usable server that offers `capability`; a server that fails is left out. */
async function gather<T>(
  gateway: McpGateway,
  p: Principal,
  capability: 'resources' | 'prompts',
  read: (client: Client, server: McpServerRecord) => Promise<T[]>,
): Promise<T[]> {
  const servers = await gateway.servers(p);
  const lists = await Promise.all(
    servers.map(async (server) => {
      try {
        const client = await gateway.upstream(server).client();
        if (!client.getServerCapabilities()?.[capability]) return [];
        return await read(client, server);
      } catch {
        return [];
      }
    }),
  );
  return lists.flat();
}

/** Every page of a list call. */
async function allPages<T>(
  list: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined && out.length < 10_000);
  return out;
}

const paging = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });

/** Every page of one list of every usable server, each item under its federated name. */
function gatherPages<T>(
  gateway: McpGateway,
  p: Principal,
  capability: 'resources' | 'prompts',
  list: (client: Client, cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>,
  federate: (item: T, server: McpServerRecord) => T,
): Promise<T[]> {
  return gather(gateway, p, capability, async (client, server) =>
    (await allPages((cursor) => list(client, cursor))).map((item) => federate(item, server)),
  );
}

/** `<server>__<rest>` -> the server's client and `<rest>`; an MCP error when no usable server owns it. */
async function owner(gateway: McpGateway, p: Principal, federated: string, kind: Kind) {
  const name = serverOf(federated);
  const server = name === undefined ? undefined : await gateway.serverNamed(p, name);
  if (!server || name === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown ${kind} '${federated}'`);
  const client = await gateway
    .upstream(server)
    .client()
    .catch((err: unknown) => {
      throw new McpError(
        ErrorCode.InternalError,
        `MCP server '${server.name}' is unavailable: ${String(err instanceof Error ? err.message : err)}`,
      );
    });
  return { client, rest: federated.slice(name.length + SEPARATOR.length) };
}

const prefixed = (server: McpServerRecord, s: string): string => `${server.name}${SEPARATOR}${s}`;

export function buildGatewayServer(gateway: McpGateway, p: Principal): Server {
  const server = new Server(
    { name: 'switchyard-mcp-gateway', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const lists = await gateway.listTools(p);
    return { tools: lists.flatMap((l) => l.tools.map(({ name, tool }) => ({ ...tool, name }))) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    if (p.role !== undefined && !mayCallModels(p.role)) {
      return { isError: true, content: [{ type: 'text', text: `A ${p.role} key may list tools but not call them` }] };
    }
    const token = request.params._meta?.progressToken;
    // The result must not overtake the last progress notification on the client's stream.
    const sent: Array<Promise<void>> = [];
    const result = await gateway.callTool(p, request.params.name, request.params.arguments, {
      signal: extra.signal,
      ...(token === undefined
        ? {}
        : {
            onProgress: (progress) => {
              sent.push(
                extra
                  .sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...progress } })
                  .catch(() => {}),
              );
            },
          }),
    });
    await Promise.all(sent);
    return result;
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await gatherPages(
      gateway,
      p,
      'resources',
      (client, cursor) =>
        client.listResources(paging(cursor)).then((r) => ({ items: r.resources, nextCursor: r.nextCursor })),
      (r, s) => ({ ...r, uri: prefixed(s, r.uri) }),
    ),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: await gatherPages(
      gateway,
      p,
      'resources',
      (client, cursor) =>
        client
          .listResourceTemplates(paging(cursor))
          .then((r) => ({ items: r.resourceTemplates, nextCursor: r.nextCursor })),
      (t, s) => ({ ...t, uriTemplate: prefixed(s, t.uriTemplate) }),
    ),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { client, rest } = await owner(gateway, p, request.params.uri, 'resources');
    const r = await client.readResource({ uri: rest });
    const name = serverOf(request.params.uri) ?? '';
    return { ...r, contents: r.contents.map((c) => ({ ...c, uri: `${name}${SEPARATOR}${c.uri}` })) };
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: await gatherPages(
      gateway,
      p,
      'prompts',
      (client, cursor) =>
        client.listPrompts(paging(cursor)).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor })),
      (pr, s) => ({ ...pr, name: prefixed(s, pr.name) }),
    ),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const { client, rest } = await owner(gateway, p, request.params.name, 'prompts');
    return client.getPrompt({ ...request.params, name: rest });
  });
  return server;
}

/** Passes a server's list_changed on to the session's client when it is of the same organization. */
export function relayListChanged(gateway: McpGateway, p: Principal, server: Server): () => void {
  return gateway.onListChanged((orgId, kind) => {
    if (orgId !== p.orgId) return;
    const send =
      kind === 'tools'
        ? server.sendToolListChanged()
        : kind === 'resources'
          ? server.sendResourceListChanged()
          : server.sendPromptListChanged();
    void send.catch(() => {});
  });
}

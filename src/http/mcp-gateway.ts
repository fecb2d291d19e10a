// The federated MCP endpoint, /mcp/v1: Streamable HTTP with sessions, so that progress and
// list_changed notifications reach the client. A session belongs to the key that opened it; another
// key presenting its id is told the session does not exist. The management MCP stays at /mcp.
import { randomUUID } from 'node:crypto';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { McpGateway } from '../mcp-gateway/gateway.ts';

interface Session {
  transport: StreamableHTTPServerTransport;
  keyId: string;
  lastSeen: number;
}

/** A session no request touched for this long is closed (a client that vanished without DELETE). */
const IDLE_MS = 30 * 60_000;

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

export function registerMcpGatewayRoutes(app: FastifyInstance, gateway: McpGateway): void {
  const sessions = new Map<string, Session>();
  const load = () =>
    Promise.all([import('../mcp-gateway/federation.ts'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]);
  let loaded: ReturnType<typeof load> | undefined;

  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const id = request.headers['mcp-session-id'];
    const p = request.principal;
    if (typeof id === 'string') {
      const s = sessions.get(id);
      if (!s || s.keyId !== p.keyId) {
        await reply.code(404).send(rpcError(-32001, 'Session not found'));
        return;
      }
      s.lastSeen = Date.now();
      reply.hijack();
      await s.transport.handleRequest(request.raw, reply.raw, request.body);
      return;
    }
    if (request.method !== 'POST') {
      await reply.code(400).send(rpcError(-32000, 'Bad request: no mcp-session-id; send initialize first'));
      return;
    }
    loaded ??= load();
    const [{ buildGatewayServer, relayListChanged }, { StreamableHTTPServerTransport }] = await loaded;
    const server = buildGatewayServer(gateway, p);
    const stopRelay = relayListChanged(gateway, p, server);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, keyId: p.keyId, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      stopRelay();
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
    // A request that did not open a session (not an initialize) leaves nothing behind.
    if (transport.sessionId === undefined) {
      stopRelay();
      await server.close();
    }
  }

  app.route({ method: ['POST', 'GET', 'DELETE'], url: '/mcp/v1', handler: handle });
  const sweep = setInterval(() => {
    const cutoff = Date.now() - IDLE_MS;
    for (const s of sessions.values()) if (s.lastSeen < cutoff) void s.transport.close().catch(() => {});
  }, 60_000);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => {})));
    sessions.clear();
  });
}

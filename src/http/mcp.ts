// The MCP endpoint: Streamable HTTP in stateless mode at /mcp, authenticated by the same API-key
// hook as every route. The SDK (the largest dependency: ~25 MB resident loaded alone) is loaded on
// the first call, not at start: the route itself is registered up front so auth, 404 and 405
// answers are the same whether or not MCP was ever used.
import type { FastifyInstance } from 'fastify';
import type { Operation } from '../manage/operation.ts';
import { setRawRequestIds } from './request-id.ts';

function loadMcp() {
  return Promise.all([import('../manage/mcp-server.ts'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]);
}
let loaded: ReturnType<typeof loadMcp> | undefined;

const METHOD_NOT_ALLOWED = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; use POST' },
  id: null,
};

export function registerMcpRoutes(app: FastifyInstance, operations: readonly Operation[]): void {
  app.post('/mcp', async (request, reply) => {
    loaded ??= loadMcp();
    const [{ buildMcpServer }, { StreamableHTTPServerTransport }] = await loaded;
    const origin = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
    const server = buildMcpServer(app.svc, operations, request.principal, () => request.svcId, origin);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The transport writes the head itself, from the raw response's headers.
    setRawRequestIds(reply.raw, request.svcId);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({ method, url: '/mcp', handler: async (_request, reply) => reply.code(405).send(METHOD_NOT_ALLOWED) });
  }
}

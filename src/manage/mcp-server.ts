// MCP server whose tools are exactly the management operations, for both transports: Streamable
// HTTP at /mcp (./mcp.ts, a fresh server per request) and stdio for the CLI. The JSON schemas are
// handed to the low-level Server as-is.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ValidateFunction } from 'ajv';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import { type RequestOrigin, runOperation } from './audit.ts';
import { toolDocs, toolInputSchema } from './openapi.ts';
import type { Operation } from './operation.ts';
import { requireOperationRole } from './roles.ts';
import type { Services } from './services.ts';
import { compileStrict, describeValidationError } from './validation.ts';

interface Tool {
  op: Operation;
  validate: ValidateFunction;
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function pick(source: Record<string, unknown>, schema: Operation['input']['body']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!schema) return out;
  for (const k of Object.keys(schema.properties)) if (k in source) out[k] = source[k];
  return out;
}

interface Catalog {
  tools: Map<string, Tool>;
  docs: ReturnType<typeof toolDocs>;
}

// Servers are built per request (stateless transport); compiling the validators once keeps that cheap.
const catalogs = new WeakMap<readonly Operation[], Catalog>();

function catalogFor(operations: readonly Operation[]): Catalog {
  let c = catalogs.get(operations);
  if (!c) {
    c = {
      tools: new Map(operations.map((op) => [op.name, { op, validate: compileStrict(toolInputSchema(op)) }])),
      docs: toolDocs(operations),
    };
    catalogs.set(operations, c);
  }
  return c;
}

export function buildMcpServer(
  svc: Services,
  operations: readonly Operation[],
  principal: Principal,
  requestId: () => string,
  origin: RequestOrigin = { ip: null, userAgent: 'switchyard mcp (stdio)' },
): Server {
  const { tools, docs } = catalogFor(operations);
  const server = new Server({ name: 'switchyard', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: docs }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name);
    if (!tool) return errorResult(`Unknown tool '${request.params.name}'`);
    const args: Record<string, unknown> = { ...(request.params.arguments ?? {}) };
    // As over REST: a caller refused the tool hears that before anything about its arguments.
    try {
      requireOperationRole(tool.op, principal);
    } catch (err) {
      if (err instanceof GatewayError) return errorResult(`${err.status} ${err.code}: ${err.message}`);
      throw err;
    }
    if (!tool.validate(args)) {
      return errorResult(describeValidationError('arguments', tool.validate.errors ?? []).message);
    }
    const { op } = tool;
    try {
      const ctx = {
        svc,
        principal,
        requestId: requestId(),
        params: pick(args, op.input.params),
        query: pick(args, op.input.query),
        body: pick(args, op.input.body),
      };
      const result = await runOperation(operations, op, ctx, origin);
      return {
        content: [{ type: 'text', text: JSON.stringify(result) }],
        structuredContent: result as Record<string, unknown>,
      };
    } catch (err) {
      if (err instanceof GatewayError)
        return errorResult(`${err.status} ${err.wireCode ?? err.alphaType}: ${err.message}`);
      svc.logger.error({ err, tool: op.name }, 'MCP tool failed');
      return errorResult('Internal error');
    }
  });
  return server;
}

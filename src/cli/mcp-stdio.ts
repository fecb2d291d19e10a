// `switchyard mcp`: the same management tools over stdio, for MCP clients that spawn a process.
// Acts as the organization of the given API key (--key, SWITCHYARD_API_KEY or SWITCHYARD_ADMIN_KEY).
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadConfig } from '../config.ts';
import { buildMcpServer } from '../manage/mcp-server.ts';
import { OPERATIONS } from '../manage/operations.ts';
import { createServices } from '../services.ts';
import { newId } from '../util/ids.ts';

export async function mcpCommand(args: string[]): Promise<number | undefined> {
  const { values } = parseArgs({ args, options: { key: { type: 'string' } } });
  const key = values.key ?? process.env.SWITCHYARD_API_KEY ?? process.env.SWITCHYARD_ADMIN_KEY;
  if (!key) {
    process.stderr.write('switchyard mcp needs an API key: --key <key>, SWITCHYARD_API_KEY or SWITCHYARD_ADMIN_KEY\n');
    return 2;
  }
  // stdout carries the protocol: logs must go to stderr.
  const config = loadConfig(process.env, { logLevel: 'warn' });
  const { default: pino } = await import('pino');
  const svc = await createServices(config, { logDestination: pino.destination(2) });
  const principal = await svc.principals.authenticate(key);
  if (!principal) {
    await svc.close();
    process.stderr.write('invalid API key\n');
    return 1;
  }
  const server = buildMcpServer(svc, OPERATIONS, principal, () => newId('req'));
  server.onclose = () => void svc.close();
  await server.connect(new StdioServerTransport());
  return undefined;
}

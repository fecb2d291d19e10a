// `switchyard mcp`: the same management tools over stdio, for MCP clients that spawn a process.
// Acts as the organization of the given API key (--key, SWITCHYARD_API_KEY or SWITCHYARD_ADMIN_KEY),
// against an existing store: the services would otherwise create one (and a master key) on the spot.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadConfig } from '../config.ts';
import { buildMcpServer } from '../manage/mcp-server.ts';
import { OPERATIONS } from '../manage/operations.ts';
import { createServices } from '../services.ts';
import { newId } from '../util/ids.ts';
import { missingMasterKey, missingStore } from './store-check.ts';

export async function mcpCommand(opts: { key?: string }): Promise<number | undefined> {
  const key = opts.key ?? process.env.SWITCHYARD_API_KEY ?? process.env.SWITCHYARD_ADMIN_KEY;
  if (!key) {
    process.stderr.write('switchyard mcp needs an API key: --key <key>, SWITCHYARD_API_KEY or SWITCHYARD_ADMIN_KEY\n');
    return 2;
  }
  // stdout carries the protocol: logs must go to stderr.
  const config = loadConfig(process.env, { logLevel: 'warn' });
  const missing = (await missingStore(config)) ?? missingMasterKey(config);
  if (missing !== null) {
    process.stderr.write(`${missing}\n`);
    return 1;
  }
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

// MCP gateway settings (SWITCHYARD_MCP_*).
import { nonEmpty, parseList } from './parse.ts';

/** Commands a stdio MCP server may run (SWITCHYARD_MCP_STDIO_COMMANDS, comma-separated); none by default. */
export function parseMcpStdioCommands(env: NodeJS.ProcessEnv): string[] {
  return parseList(nonEmpty(env.SWITCHYARD_MCP_STDIO_COMMANDS));
}

// `switchyard <command>`. Each command lives in its own file; adding one is one line in COMMANDS.
import { fakeUpstreamCommand } from './fake-upstream.ts';
import { keysCommand } from './keys.ts';
import { mcpCommand } from './mcp-stdio.ts';
import { migrateCommand } from './migrate.ts';
import { openapiCommand } from './openapi.ts';
import { serveCommand } from './serve.ts';

type Command = (args: string[]) => Promise<number | undefined>;

const COMMANDS: Record<string, { run: Command; help: string }> = {
  serve: { run: serveCommand, help: 'serve                       start the gateway (default)' },
  migrate: { run: migrateCommand, help: 'migrate                     apply database migrations and exit' },
  keys: {
    run: keysCommand,
    help: 'keys create [--project <id>] [--name <n>] | keys list | keys revoke <id>   manage API keys offline',
  },
  openapi: {
    run: openapiCommand,
    help: 'openapi [--write]           print (or write) openapi.yaml and mcp-tools.json',
  },
  'fake-upstream': {
    run: fakeUpstreamCommand,
    help: 'fake-upstream --port <p>    serve the seven vendors emulated (tests, demo, bench)',
  },
  mcp: { run: mcpCommand, help: 'mcp [--key <api key>]       serve the management tools over MCP stdio' },
};

function usage(): string {
  return `Usage: switchyard <command>\n\n${Object.values(COMMANDS)
    .map((c) => `  ${c.help}`)
    .join('\n')}\n\nConfiguration comes from SWITCHYARD_* environment variables (see README).\n`;
}

export async function main(argv: string[]): Promise<void> {
  const [name = 'serve', ...rest] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`Unknown command '${name}'.\n\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  try {
    const code = await command.run(rest);
    if (code !== undefined) process.exitCode = code;
  } catch (err) {
    process.stderr.write(`switchyard ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}

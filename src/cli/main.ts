// `switchyard <command>`. Each command lives in its own file; adding one is one line in COMMANDS.
// Commands are imported only when chosen: `serve` would otherwise also hold the whole fake upstream
// and the MCP stdio transport in memory for the life of the gateway.

type Command = (args: string[]) => Promise<number | undefined>;

const COMMANDS: Record<string, { load: () => Promise<Command>; help: string }> = {
  serve: {
    load: async () => (await import('./serve.ts')).serveCommand,
    help: 'serve                       start the gateway (default)',
  },
  migrate: {
    load: async () => (await import('./migrate.ts')).migrateCommand,
    help: 'migrate                     apply database migrations and exit',
  },
  keys: {
    load: async () => (await import('./keys.ts')).keysCommand,
    help: 'keys create [--project <id>] [--name <n>] | keys list | keys revoke <id>   manage API keys offline',
  },
  openapi: {
    load: async () => (await import('./openapi.ts')).openapiCommand,
    help: 'openapi [--write]           print (or write) openapi.yaml and mcp-tools.json',
  },
  'fake-upstream': {
    load: async () => (await import('./fake-upstream.ts')).fakeUpstreamCommand,
    help: 'fake-upstream --port <p>    serve the seven vendors emulated (tests, demo, bench)',
  },
  mcp: {
    load: async () => (await import('./mcp-stdio.ts')).mcpCommand,
    help: 'mcp [--key <api key>]       serve the management tools over MCP stdio',
  },
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
    const run = await command.load();
    const code = await run(rest);
    if (code !== undefined) process.exitCode = code;
  } catch (err) {
    process.stderr.write(`switchyard ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}

// `switchyard <command>`: the command tree, its flags and help, declared once with commander. Each
// command's work lives in its own file, imported only when chosen: `serve` would otherwise also hold
// the whole fake upstream and the MCP stdio transport in memory for the life of the gateway.
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { BatchRunOptions } from './batch.ts';
import type { ServeOptions } from './serve.ts';
import { ignoreClosedPipes } from './stdio.ts';

/** A command's result: an exit code, or undefined when it keeps running (servers) and exits on its own. */
type Outcome = number | undefined;

/** Usage errors (unknown flag or command, bad value) exit 2, the convention shells and parsers share. */
const USAGE_ERROR = 2;

function parsePort(raw: string): number {
  const n = Number(raw);
  if (!/^\d{1,5}$/.test(raw) || n > 65535) {
    throw new InvalidArgumentError('expected an integer between 0 and 65535 (0 = any free port).');
  }
  return n;
}

function parseCount(raw: string): number {
  if (!/^[1-9]\d{0,5}$/.test(raw)) throw new InvalidArgumentError('expected a positive integer.');
  return Number(raw);
}

const CONFIG_NOTE = '\nConfiguration comes from SWITCHYARD_* environment variables (see README "Configuration").';

function buildProgram(done: (outcome: Outcome) => void): Command {
  const program = new Command('switchyard')
    .description('Switchyard, an LLM gateway. Without a command: serve.')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError()
    .addHelpText('after', CONFIG_NOTE);

  program
    .command('serve')
    .description('start the gateway (the default command); creates the store on first start')
    .option('--port <port>', 'port to listen on, 0 = any free port (default: SWITCHYARD_PORT, then 8080)', parsePort)
    .option('--host <host>', 'address to listen on (default: SWITCHYARD_HOST, then 127.0.0.1)')
    .option(
      '--data-dir <dir>',
      'where the SQLite store and master key live (default: SWITCHYARD_DATA_DIR, then ./data)',
    )
    .addHelpText(
      'after',
      `${CONFIG_NOTE}
A flag given here wins over its environment variable.`,
    )
    .action(async (opts: ServeOptions) => done(await (await import('./serve.ts')).serveCommand(opts)));

  program
    .command('migrate')
    .description('create the store if needed, apply database migrations, and exit')
    .addHelpText('after', CONFIG_NOTE)
    .action(async () => done(await (await import('./migrate.ts')).migrateCommand()));

  const keys = program
    .command('keys')
    .description('manage API keys offline, against an existing store (no server needed)')
    .addHelpText('after', CONFIG_NOTE);
  keys
    .command('create')
    .description('create an API key and print its plaintext once')
    .option('--project <project_id>', 'scope the key to one project (default: org-wide)')
    .option('--name <name>', 'a label for the key')
    .option('--role <role>', 'admin, developer, viewer or inference (default: admin org-wide, inference for a project)')
    .option('--allowed-models <patterns>', 'comma-separated model globs and @slug patterns (default: every model)')
    .option('--allowed-tools <patterns>', 'comma-separated <server>__<tool> globs for /mcp/v1 (default: every tool)')
    .option('--expires-at <timestamp>', 'ISO-8601; after it the key gets 401 api_key_expired')
    .option('--metadata <name=value>', 'a metadata pair (repeat, at most 16)', (v: string, acc: string[] = []) => [
      ...acc,
      v,
    ])
    .action(async (opts: import('./keys.ts').KeyCreateOptions) =>
      done(await (await import('./keys.ts')).keysCreate(opts)),
    );
  keys
    .command('list')
    .description('list API keys (never their plaintext)')
    .action(async () => done(await (await import('./keys.ts')).keysList()));
  keys
    .command('revoke')
    .description('revoke an API key; a running gateway refuses it within a second')
    .argument('<key_id>', 'the key to revoke (key_...)')
    .action(async (id: string) => done(await (await import('./keys.ts')).keysRevoke(id)));
  keys
    .command('rotate')
    .description('print a new plaintext for a key once; the old one works for the grace period')
    .argument('<key_id>', 'the key to rotate (key_...)')
    .option('--grace-period <seconds>', 'how long the old plaintext keeps working (0-604800)', '0')
    .action(async (id: string, opts: { gracePeriod?: string }) =>
      done(await (await import('./keys.ts')).keysRotate(id, opts)),
    );

  const cfg = program
    .command('config')
    .description('configuration as code: check, plan, apply or export a SWITCHYARD_CONFIG file (no server needed)')
    .addHelpText('after', CONFIG_NOTE);
  cfg
    .command('validate')
    .description('check a file against the schema and resolve its env: and file: secret references')
    .argument('[file]', 'the file (default: SWITCHYARD_CONFIG)')
    .action(async (file?: string) => done((await import('./config.ts')).configValidate(file)));
  cfg
    .command('plan')
    .description('print what apply would create, change and delete; exits 0 with no changes, 2 with changes')
    .argument('[file]', 'the file (default: SWITCHYARD_CONFIG)')
    .action(async (file?: string) => done(await (await import('./config.ts')).configPlan(file, { apply: false })));
  cfg
    .command('apply')
    .description('make the changes plan prints; a running gateway on the same store follows within its refresh')
    .argument('[file]', 'the file (default: SWITCHYARD_CONFIG)')
    .action(async (file?: string) => done(await (await import('./config.ts')).configPlan(file, { apply: true })));
  cfg
    .command('export')
    .description('write the current state as a file (YAML; --json for JSON) that plans to no change')
    .option('--out <file>', 'write here instead of stdout')
    .option('--json', 'JSON instead of YAML')
    .action(async (opts: { out?: string; json?: boolean }) =>
      done(await (await import('./config.ts')).configExport(opts)),
    );

  program
    .command('openapi')
    .description('print openapi.yaml, or write openapi.yaml and mcp-tools.json to the current directory')
    .option('--write', 'write the files instead of printing the document')
    .action(async (opts: { write?: boolean }) =>
      done(await (await import('./openapi.ts')).openapiCommand({ write: opts.write === true })),
    );

  program
    .command('mcp')
    .description('serve the management tools over MCP stdio, against an existing store')
    .option('--key <api_key>', 'the API key to act as (default: SWITCHYARD_API_KEY, then SWITCHYARD_ADMIN_KEY)')
    .addHelpText('after', CONFIG_NOTE)
    .action(async (opts: { key?: string }) => done(await (await import('./mcp-stdio.ts')).mcpCommand(opts)));

  program
    .command('batch')
    .description('run batches on a running gateway')
    .command('run')
    .description('submit a JSONL file as a batch to a running gateway, show its progress, write the results')
    .argument('<input>', 'JSONL: batch lines {custom_id, method, url, body} or bare request bodies')
    .option('--model <model>', 'set body.model on every line (a vendor/model or @slug)')
    .option('--out <file>', 'results file (default: <input>.results.jsonl next to the input)')
    .option('--concurrency <n>', 'requests in flight at once (X-Svc-Batch-Concurrency)', parseCount)
    .option('--url <url>', 'gateway URL (default: SWITCHYARD_URL, then http://127.0.0.1:8080)')
    .option('--api-key <key>', 'gateway API key, sy-... (default: SWITCHYARD_API_KEY)')
    .action(async (input: string, opts: BatchRunOptions) =>
      done(await (await import('./batch.ts')).batchRunCommand(input, opts)),
    );

  program
    .command('fake-upstream')
    .description('serve the seven vendors emulated on one port (tests, demos, benchmarks; never production)')
    .option('--port <port>', 'port to listen on (0 = any free port)', parsePort, 9090)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--aws-secret <secret>',
      'the secret access key the Bedrock emulation checks signatures with',
      'test-secret',
    )
    .option('--no-record', 'do not keep received requests for GET /__requests')
    .action(async (opts: { port: number; host: string; awsSecret: string; record: boolean }) =>
      done(await (await import('./fake-upstream.ts')).fakeUpstreamCommand(opts)),
    );

  program
    .command('demo')
    .description('start the fake upstream and a gateway wired to it, with sample configs and ready-to-paste snippets')
    .option('--port <port>', 'gateway port (0 = any free port)', parsePort, 8080)
    .option('--upstream-port <port>', 'fake upstream port (0 = any free port)', parsePort, 0)
    .option('--data-dir <dir>', 'keep the demo store here (default: a temporary directory, removed on exit)')
    .action(async (opts: { port: number; upstreamPort: number; dataDir?: string }) =>
      done(await (await import('./demo.ts')).demoCommand(opts)),
    );

  return program;
}

export async function main(argv: string[]): Promise<void> {
  ignoreClosedPipes();
  let outcome: Outcome;
  const program = buildProgram((o) => {
    outcome = o;
  });
  try {
    await program.parseAsync(argv.length === 0 ? ['serve'] : argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help asked for exits 0; help shown because something was missing (`keys` alone) is a usage error.
      process.exitCode = err.exitCode === 0 ? 0 : USAGE_ERROR;
      return;
    }
    const name = argv[0] ?? 'serve';
    process.stderr.write(`switchyard ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
    return;
  }
  if (outcome !== undefined) process.exitCode = outcome;
}

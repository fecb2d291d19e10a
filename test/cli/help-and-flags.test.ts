// The CLI's contract with a user at the shell: `--help` on every command answers and does nothing
// else, an unknown flag or command is refused with exit 2 naming it, and the commands that work on an
// existing store refuse to create one, saying where they looked.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { dialects, dropSchema, randomSchema, TEST_PG_URL } from '../helpers/dialects.ts';
import { runCli } from './run-cli.ts';

/** Every command path, with the words its usage line must show. */
const COMMANDS: Array<{ args: string[]; usage: string }> = [
  { args: [], usage: 'Usage: switchyard [options] [command]' },
  { args: ['serve'], usage: 'Usage: switchyard serve' },
  { args: ['migrate'], usage: 'Usage: switchyard migrate' },
  { args: ['keys'], usage: 'Usage: switchyard keys' },
  { args: ['keys', 'create'], usage: 'Usage: switchyard keys create' },
  { args: ['keys', 'list'], usage: 'Usage: switchyard keys list' },
  { args: ['keys', 'revoke'], usage: 'Usage: switchyard keys revoke [options] <key_id>' },
  { args: ['openapi'], usage: 'Usage: switchyard openapi' },
  { args: ['mcp'], usage: 'Usage: switchyard mcp' },
  { args: ['fake-upstream'], usage: 'Usage: switchyard fake-upstream' },
  { args: ['demo'], usage: 'Usage: switchyard demo' },
  { args: ['batch'], usage: 'Usage: switchyard batch [options] [command]' },
  { args: ['batch', 'run'], usage: 'Usage: switchyard batch run [options] <input>' },
];

describe('switchyard CLI: help and flags', () => {
  const root = mkdtempSync(join(tmpdir(), 'switchyard-cli-flags-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  /** A fresh, empty working directory whose data dir does not exist yet. */
  function sandbox(name: string): { cwd: string; env: Record<string, string>; dataDir: string } {
    const cwd = join(root, name);
    mkdirSync(cwd);
    const dataDir = join(cwd, 'data');
    return { cwd, dataDir, env: { SWITCHYARD_DATA_DIR: dataDir, SWITCHYARD_PORT: '0' } };
  }

  test('--help on every command and subcommand prints its usage, exits 0 and does nothing else', async () => {
    const cases = COMMANDS.map((c) => ({ args: [...c.args, '--help'], usage: c.usage }));
    cases.push({ args: ['-h'], usage: 'Usage: switchyard [options] [command]' });
    cases.push({ args: ['keys', 'create', '-h'], usage: 'Usage: switchyard keys create' });
    cases.push({ args: ['help', 'keys'], usage: 'Usage: switchyard keys' });
    cases.push({ args: ['keys', 'help', 'create'], usage: 'Usage: switchyard keys create' });
    await Promise.all(
      cases.map(async ({ args, usage }, i) => {
        const box = sandbox(`help-${i}`);
        // A `serve --help` or `demo --help` that served instead would still be running here.
        const r = await runCli(args, { cwd: box.cwd, env: box.env, timeoutMs: 15_000 });
        const what = `switchyard ${args.join(' ')}: ${r.stderr}`;
        assert.equal(r.signal, null, `${what} did not exit by itself`);
        assert.equal(r.code, 0, what);
        assert.ok(r.stdout.includes(usage), `${what}\n${r.stdout}`);
        assert.ok(!r.stdout.includes('openapi: 3.1'), `${what} printed the document`);
        assert.ok(!r.stdout.includes('listening'), what);
        assert.deepEqual(readdirSync(box.cwd), [], `${what} left files behind`);
      }),
    );
  });

  test('unknown flags, unknown commands and bad values exit 2 and name the culprit', async () => {
    const cases: Array<{ args: string[]; says: string }> = [
      ...COMMANDS.map((c) => ({
        args: [...c.args, ...(c.args[1] === 'revoke' ? ['key_x'] : []), '--bogus-flag'],
        says: "unknown option '--bogus-flag'",
      })),
      { args: ['bogus-command'], says: "unknown command 'bogus-command'" },
      { args: ['keys', 'bogus-command'], says: "unknown command 'bogus-command'" },
      { args: ['keys', 'revoke'], says: "missing required argument 'key_id'" },
      { args: ['keys', 'list', 'extra'], says: 'too many arguments' },
      { args: ['fake-upstream', '--port', 'eighty'], says: "argument 'eighty' is invalid" },
      { args: ['demo', '--upstream-port', '70000'], says: "argument '70000' is invalid" },
      { args: ['openapi', '--writ'], says: 'Did you mean --write?' },
      // A group without its subcommand shows what it takes, as an error.
      { args: ['keys'], says: 'Usage: switchyard keys' },
    ];
    await Promise.all(
      cases.map(async ({ args, says }, i) => {
        const box = sandbox(`bad-${i}`);
        const r = await runCli(args, { cwd: box.cwd, env: box.env, timeoutMs: 15_000 });
        const what = `switchyard ${args.join(' ')}: ${r.stdout}${r.stderr}`;
        assert.equal(r.code, 2, what);
        assert.ok(r.stderr.includes(says), what);
        assert.deepEqual(readdirSync(box.cwd), [], `${what} left files behind`);
      }),
    );
  });

  test('keys and mcp against a missing store exit 1, create nothing and say where they looked', async () => {
    const emptyDir = join(root, 'empty-data');
    mkdirSync(emptyDir);
    const cases = [['keys', 'list'], ['keys', 'create', '--name', 'ci'], ['keys', 'revoke', 'key_x'], ['mcp']];
    await Promise.all(
      cases.flatMap((args, i) => [
        (async () => {
          // The default data dir, ./data, which does not exist.
          const cwd = join(root, `missing-${i}`);
          mkdirSync(cwd);
          const r = await runCli(args, { cwd, env: { SWITCHYARD_ADMIN_KEY: 'sy-some-key-0000000000000000' } });
          const what = `switchyard ${args.join(' ')}: ${r.stderr}`;
          assert.equal(r.code, 1, what);
          assert.ok(r.stderr.includes(join(cwd, 'data', 'switchyard.db')), what);
          assert.ok(r.stderr.includes('switchyard serve'), what);
          assert.deepEqual(readdirSync(cwd), [], what);
        })(),
        (async () => {
          // A data dir that exists but holds no store.
          const cwd = join(root, `empty-${i}`);
          mkdirSync(cwd);
          const r = await runCli(args, { cwd, env: { SWITCHYARD_DATA_DIR: emptyDir, SWITCHYARD_API_KEY: 'sy-x' } });
          assert.equal(r.code, 1, r.stderr);
          assert.ok(r.stderr.includes(join(emptyDir, 'switchyard.db')), r.stderr);
        })(),
      ]),
    );
    assert.deepEqual(readdirSync(emptyDir), []);
  });

  test('with PostgreSQL the message names the URL with its password masked', async () => {
    const box = sandbox('pg-unreachable');
    const url = 'postgres://sy_user:hunter2@127.0.0.1:1/switchyard';
    const r = await runCli(['keys', 'list'], { cwd: box.cwd, env: { SWITCHYARD_DATABASE_URL: url } });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stderr.includes('postgres://sy_user:***@127.0.0.1:1/switchyard'), r.stderr);
    assert.ok(!r.stderr.includes('hunter2'), 'the password is never printed');
    assert.ok(!existsSync(box.dataDir));
  });

  test('keys against an empty PostgreSQL schema creates no tables', async (t) => {
    const pgTarget = (await dialects()).find((d) => d.name === 'postgres');
    if (pgTarget?.skip) return t.skip(pgTarget.skip);
    const schema = randomSchema();
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      // libpq's `options` puts the empty schema first on the search path, as a deployment's own
      // database would be.
      const url = new URL(TEST_PG_URL);
      url.password = 'hunter2';
      url.searchParams.set('options', `-c search_path=${schema}`);
      const box = sandbox('pg-empty');
      const r = await runCli(['keys', 'list'], { cwd: box.cwd, env: { SWITCHYARD_DATABASE_URL: url.toString() } });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /no Switchyard store found at postgres:\/\/[^ ]*:\*\*\*@/);
      assert.ok(!r.stderr.includes('hunter2'));
      const tables = await client.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [
        schema,
      ]);
      assert.equal(tables.rowCount, 0, 'no table was created');
    } finally {
      await client.end();
      await dropSchema(schema);
    }
  });
});

// README.md is run, not just read: every ```sh / ```bash block runs in README order in one bash
// session against a live gateway and the fake upstream, and every routing-config snippet is created
// as written. Annotations (`<!-- doc-test: ... -->`, see markdown-blocks.ts) mark the few blocks
// that cannot run and the ones that show an error on purpose.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import { type DocBlock, isShell, parseBlocks } from './markdown-blocks.ts';
import { type BlockResult, runShellBlocks } from './shell-run.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(`${repo}README.md`, 'utf8');
const blocks = parseBlocks(readme);
const shellBlocks = blocks.filter(isShell);

/** Skips are for blocks that start servers, run the suite or write committed files; more means drift. */
const MAX_SKIPPED = 6;
const OUTPUT_TAIL = 4000;

/**
 * Commands that would reinstall, rebuild, serve or rewrite this checkout when run from the test; a
 * block holding one must be annotated skip (checked before anything runs).
 */
const UNSAFE = [
  /\bnpx switchyard\b/,
  /\bnpm (ci|i|install|start|test|run)\b/,
  /\.ci\/run\b/,
  /--write(?![\w-])/,
  /\bgit\s/,
  /\brm\s+-r/,
];

let fake: FakeUpstream;
let gw: Gateway;

before(async () => {
  for (const tool of ['bash', 'curl', 'jq']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error(`the README doc-test needs ${tool} on PATH (.ci/run installs it)`);
    }
  }
  fake = await startFakeUpstream({ port: 0, record: false });
  // The MCP gateway's example runs server-everything through npx, as the README says to allow.
  gw = await startGateway({ config: { mcpStdioCommands: ['npx'] } });
});

after(async () => {
  await gw?.close();
  await fake?.close();
});

/** The reader's terminal: the variables the README tells them to set, pointed at this test's servers. */
function shellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // The test runner's own variables would make a child node process report to it; SWITCHYARD_*
    // from the caller's shell would point the CLI blocks at another store.
    if (!k.startsWith('SWITCHYARD_') && !k.startsWith('NODE_TEST')) env[k] = v;
  }
  return {
    ...env,
    SY: gw.url,
    KEY: gw.adminKey,
    FAKE: fake.url,
    // `npx switchyard keys ...` works offline on the same store as the running gateway.
    SWITCHYARD_DATA_DIR: gw.dataDir,
    SWITCHYARD_ADMIN_KEY: gw.adminKey,
    SWITCHYARD_LOG_LEVEL: 'warn',
    npm_config_update_notifier: 'false',
    // The README says `node bin/switchyard.js` (UNSAFE refuses `npx switchyard`, which installs the
    // checkout into npm's npx cache and runs its build); should an npm command slip in anyway, it
    // must not rebuild dist/ under every other test's running gateway.
    npm_config_ignore_scripts: 'true',
  };
}

function tail(text: string): string {
  return text.length <= OUTPUT_TAIL ? text : `...${text.slice(-OUTPUT_TAIL)}`;
}

function failureMessage(r: BlockResult, firstFailure: DocBlock | undefined): string {
  const o = r.outcome;
  const where = `README.md block at line ${r.block.line}`;
  if (o.kind === 'failed') {
    const why = o.timedOut ? 'timed out' : `exit status ${o.exitStatus}`;
    return `${where} failed (${why}):\n${r.block.code}\n--- output ---\n${tail(o.output) || '(none)'}`;
  }
  if (o.kind === 'not-run') {
    return firstFailure
      ? `${where} did not run: the block at line ${firstFailure.line} failed first`
      : `${where} did not run: the shell ended before it (prelude.sh failed?)`;
  }
  return `${where}: unexpected outcome ${o.kind}`;
}

test('every shell block of README.md runs against a live gateway', { timeout: 240_000 }, async (t) => {
  assert.ok(shellBlocks.length >= 10, `expected the README's shell blocks, found ${shellBlocks.length}`);
  const unsafe = shellBlocks.filter((b) => b.annotation?.kind !== 'skip' && UNSAFE.some((re) => re.test(b.code)));
  assert.deepEqual(
    unsafe.map((b) => `line ${b.line}: ${b.code.split('\n')[0]}`),
    [],
    'these blocks would change the checkout when run: annotate them <!-- doc-test: skip (reason) -->',
  );
  const started = Date.now();
  // A bound for a hung block, not a speed test: the ~45 blocks take 20-60 s on a busy 2-core machine.
  const results = await runShellBlocks(shellBlocks, { cwd: repo, env: shellEnv(), timeoutMs: 180_000 });
  t.diagnostic(`${shellBlocks.length} shell blocks in ${Date.now() - started} ms`);
  const firstFailure = results.find((r) => r.outcome.kind === 'failed')?.block;
  for (const r of results) {
    const name = `README.md line ${r.block.line}`;
    if (r.outcome.kind === 'skipped') {
      await t.test(name, { skip: r.outcome.reason }, () => {});
      continue;
    }
    await t.test(name, () => {
      assert.equal(r.outcome.kind, 'passed', failureMessage(r, firstFailure));
    });
  }
});

// After the shell blocks: the TypeScript snippets use the credentials the walkthrough added.
test('every TypeScript snippet of README.md runs against the live gateway', async () => {
  const snippets = blocks.filter((b) => b.lang === 'ts' || b.lang === 'typescript');
  assert.ok(snippets.length >= 1, 'expected the SDK examples');
  // Under node_modules/ so that the snippet's imports resolve to the project's packages without
  // writing into the tracked tree.
  const dir = `${repo}node_modules/.cache/switchyard-readme`;
  mkdirSync(dir, { recursive: true });
  try {
    for (const b of snippets) {
      const file = `${dir}/line-${b.line}-${process.pid}.mts`;
      // The snippets name the default address; the test's gateway listens elsewhere.
      writeFileSync(file, b.code.replaceAll('http://127.0.0.1:8080', gw.url));
      // Not spawnSync: the gateway answering the snippet runs in this process.
      await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
        cwd: repo,
        env: { ...shellEnv(), SWITCHYARD_KEY: gw.adminKey },
        timeout: 60_000,
      }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
        const output = tail(`${err.stdout ?? ''}${err.stderr ?? ''}`) || err.message;
        assert.fail(`README.md ts block at line ${b.line} failed:\n${b.code}\n--- output ---\n${output}`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The agent loop must have called a tool through /mcp/v1, not just ended on the model's first answer.
  await gw.app.svc.logs.flush();
  const calls = await call(gw, 'GET', '/manage/v1/logs?request_type=mcp_tool_call&mcp_server=everything');
  const rows = (calls.body as { data: Array<{ status_code: number }> }).data;
  assert.ok(
    rows.some((r) => r.status_code === 200),
    `the README agent loop made no successful tool call: ${calls.text}`,
  );
});

test('skipped README blocks are few and each says why', (t) => {
  const skipped = shellBlocks.filter((b) => b.annotation?.kind === 'skip');
  for (const b of skipped) {
    if (b.annotation?.kind === 'skip') t.diagnostic(`skipped: README.md line ${b.line}: ${b.annotation.reason}`);
  }
  assert.ok(
    skipped.length <= MAX_SKIPPED,
    `${skipped.length} skipped shell blocks (at most ${MAX_SKIPPED}): make the new ones runnable instead`,
  );
  const stray = blocks.filter((b) => b.annotation !== null && !isShell(b)).map((b) => b.line);
  assert.deepEqual(stray, [], 'doc-test annotations only apply to sh/bash blocks');
});

test('every routing-config snippet of README.md is accepted as written', async () => {
  const snippets = blocks.filter((b) => b.lang === 'json' && /"strategy"\s*:/.test(b.code));
  assert.ok(snippets.length >= 8, `expected one snippet per strategy, found ${snippets.length}`);
  for (const b of snippets) {
    const r = await call(gw, 'POST', '/manage/v1/routing-configs', b.code);
    assert.equal(r.status, 201, `README.md json block at line ${b.line} was refused: ${r.text}`);
    // Deleting frees the slug, so a shell block may use the same name without a conflict.
    const id = (r.body as { id: string }).id;
    assert.equal((await call(gw, 'DELETE', `/manage/v1/routing-configs/${id}`)).status, 200);
  }
});

test('README.md names every MCP tool', () => {
  const tools = JSON.parse(readFileSync(`${repo}mcp-tools.json`, 'utf8')) as Array<{ name: string }>;
  const missing = tools.map((t) => t.name).filter((name) => !readme.includes(`\`${name}\``));
  assert.deepEqual(missing, [], 'list these tools under "OpenAPI and MCP"');
});

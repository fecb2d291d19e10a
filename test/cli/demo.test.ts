// `switchyard demo` as a user meets it: one command, then the snippets it printed are pasted as they
// are (curl through bash, the two SDK programs through node), the management API shows every vendor
// and one config per strategy, and Ctrl+C stops everything and removes the temporary store.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, cleanEnv, REPO_ROOT } from './run-cli.ts';

const STRATEGIES = [
  'single',
  'fallback',
  'cost_optimized',
  'latency_optimized',
  'ensemble',
  'ab_test',
  'cascade',
  'custom_rules',
];
const VENDORS = ['openai', 'anthropic', 'google', 'azure-openai', 'bedrock', 'together', 'fireworks'];

/** The printed output cut at its `==> ` headers: the overview first, then one entry per section. */
function sections(out: string): Map<string, string> {
  const parts = new Map<string, string>();
  const chunks = out.split(/^==> /m);
  parts.set('overview', chunks[0] ?? '');
  for (const chunk of chunks.slice(1)) {
    const nl = chunk.indexOf('\n');
    parts.set(chunk.slice(0, nl).split(' ')[0] ?? '', chunk.slice(nl + 1).trim());
  }
  return parts;
}

function field(overview: string, label: string): string {
  const m = new RegExp(`^${label}\\s+(\\S+)`, 'm').exec(overview);
  assert.ok(m?.[1], `no "${label}" line in:\n${overview}`);
  return m[1];
}

describe('switchyard demo', () => {
  const root = mkdtempSync(join(tmpdir(), 'switchyard-demo-test-'));
  // The demo's temporary store goes under TMPDIR, so the test can see it appear and go.
  const tmp = join(root, 'tmp');
  const cwd = join(root, 'cwd');
  mkdirSync(tmp);
  mkdirSync(cwd);
  let child: ChildProcess;
  let out = '';
  let exited: Promise<number | null>;

  before(async () => {
    child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--upstream-port', '0'], {
      cwd,
      env: cleanEnv({ TMPDIR: tmp }),
    });
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout?.on('data', (d) => {
      out += String(d);
    });
    child.stderr?.on('data', (d) => {
      out += String(d);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`demo not ready:\n${out}`)), 60_000);
      const check = () => {
        // The whole text follows the ready line; wait for its last section.
        if (out.includes('Switchyard demo ready') && out.includes('==> Ctrl+C')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', check);
      child.once('exit', () => reject(new Error(`demo exited:\n${out}`)));
    });
  });

  after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  test('the curl snippets work when pasted into bash', () => {
    const curl = sections(out).get('curl') ?? '';
    const snippets = curl.split(/\n\s*\n/);
    assert.ok(snippets.length >= 4, curl);
    const results = snippets.map((s) => {
      const r = spawnSync('bash', ['-c', s], { encoding: 'utf8', timeout: 15_000 });
      assert.equal(r.status, 0, `${s}\n${r.stderr}`);
      assert.ok(r.stdout.length > 0, s);
      return r.stdout;
    });
    // The fallback config: its first attempt is scripted to fail, the second vendor answers.
    const fallback = JSON.parse(results[0] ?? '') as {
      model: string;
      choices: Array<{ message: { content: string } }>;
    };
    assert.equal(fallback.model, 'claude-sonnet-4-5');
    assert.match(fallback.choices[0]?.message.content ?? '', /Hello/);
    // The custom rules config through the other family: the tier=gold tag picks anthropic.
    const rules = JSON.parse(results[1] ?? '') as { type: string; model: string };
    assert.equal(rules.type, 'message');
    assert.equal(rules.model, 'claude-sonnet-4-5');
    assert.match(results[2] ?? '', /data: \[DONE\]/);
    const dry = JSON.parse(results[3] ?? '') as { dry_run: { policy: string; variant_bucket: string } };
    assert.equal(dry.dry_run.policy, 'ab_test');
    assert.ok(['control', 'candidate'].includes(dry.dry_run.variant_bucket));
  });

  for (const sdk of ['openai', '@anthropic-ai/sdk']) {
    test(`the ${sdk} snippet runs as printed`, () => {
      const program = sections(out).get(sdk) ?? '';
      assert.ok(program.includes(`from '${sdk}'`), program);
      // Run from the repository so that the SDK (a devDependency) resolves, as after `npm i <sdk>`.
      const r = spawnSync(process.execPath, ['--input-type=module'], {
        cwd: REPO_ROOT,
        input: program,
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(r.status, 0, `${program}\n${r.stderr}`);
      assert.match(r.stdout, /Echo: Hello/);
    });
  }

  test('every vendor is registered and every strategy has a working config', async () => {
    const overview = sections(out).get('overview') ?? '';
    const url = field(overview, 'Gateway');
    const key = field(overview, 'Admin API key');
    const fakeUrl = field(overview, 'Fake upstream');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const providers = (await (await fetch(`${url}/manage/v1/providers`, { headers })).json()) as {
      data: Array<{ vendor: string; base_url: string }>;
    };
    assert.deepEqual(providers.data.map((p) => p.vendor).sort(), [...VENDORS].sort());
    for (const p of providers.data) assert.ok(p.base_url.startsWith(fakeUrl), `${p.vendor}: ${p.base_url}`);

    const configs = (await (await fetch(`${url}/manage/v1/routing-configs`, { headers })).json()) as {
      data: Array<{ slug: string; strategy: string; name: string }>;
    };
    assert.deepEqual(configs.data.map((c) => c.strategy).sort(), [...STRATEGIES].sort());
    for (const c of configs.data) {
      assert.ok(c.name, `${c.slug} has a name`);
      const r = await fetch(`${url}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: `@${c.slug}`, messages: [{ role: 'user', content: 'Hello' }] }),
      });
      assert.equal(r.status, 200, `@${c.slug}: ${await r.text()}`);
      assert.equal(r.headers.get('x-svc-config'), c.slug);
    }
  });

  test('SIGINT stops both servers, exits 0 and removes the temporary store', async () => {
    const overview = sections(out).get('overview') ?? '';
    const url = field(overview, 'Gateway');
    const fakeUrl = field(overview, 'Fake upstream');
    // tsx may keep its cache under TMPDIR too; only the demo's own directory matters here.
    const stores = () => readdirSync(tmp).filter((f) => f.startsWith('switchyard-demo-'));
    assert.equal(stores().length, 1, 'the store lives in one temporary directory');
    child.kill('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('timeout'), 5_000)))]);
    clearTimeout(timer);
    assert.equal(code, 0, out);
    assert.deepEqual(stores(), [], 'the temporary store is removed');
    assert.deepEqual(readdirSync(cwd), [], 'nothing is written to the working directory (no ./data)');
    await assert.rejects(fetch(`${url}/healthz`));
    await assert.rejects(fetch(`${fakeUrl}/openai/v1/models`));
  });
});

// The real entry point: `switchyard serve` with no configuration in a fresh directory (what
// `npm start` runs), restart persistence, graceful SIGTERM, and the offline `keys` commands.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'switchyard.js');

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
  return env;
}

interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
}

async function serve(cwd: string): Promise<Running> {
  // Port 0 only so parallel test files never collide; everything else is the embedded default.
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd, env: cleanEnv({ SWITCHYARD_PORT: '0' }) });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
    const check = () => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', check);
    child.on('exit', () => reject(new Error(`server exited:\n${out}`)));
  });
  return { child, url, stdout: () => out };
}

async function stop(r: Running): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => r.child.on('exit', (code) => resolve(code)));
  r.child.kill('SIGTERM');
  return exited;
}

describe('switchyard CLI', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'switchyard-cli-'));
  after(() => rmSync(cwd, { recursive: true, force: true }));

  test('serve with no configuration, list the default project, restart keeps everything', async () => {
    const first = await serve(cwd);
    const key = /Admin API key[^\n]*\n\n\s+(sy-\S+)/.exec(first.stdout())?.[1];
    assert.ok(key, first.stdout());
    const list = await fetch(`${first.url}/manage/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(list.status, 200);
    const body = (await list.json()) as { data: Array<{ slug: string }> };
    assert.deepEqual(
      body.data.map((p) => p.slug),
      ['default'],
    );
    const created = await fetch(`${first.url}/manage/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kept' }),
    });
    assert.equal(created.status, 201);
    assert.equal(await stop(first), 0);
    assert.equal(statSync(join(cwd, 'data', 'master.key')).mode & 0o777, 0o600);

    const second = await serve(cwd);
    try {
      assert.ok(!second.stdout().includes('Admin API key'), 'the admin key is printed only once');
      const again = await fetch(`${second.url}/manage/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
      const slugs = ((await again.json()) as { data: Array<{ slug: string }> }).data.map((p) => p.slug);
      assert.deepEqual(slugs, ['default', 'kept']);

      // Offline key management against the same store, seen by the running server.
      const made = spawnSync(process.execPath, [BIN, 'keys', 'create', '--name', 'ci'], { cwd, env: cleanEnv() });
      assert.equal(made.status, 0, String(made.stderr));
      const [meta, plaintext] = String(made.stdout).trim().split('\n');
      const keyId = meta?.split('\t')[0] ?? '';
      assert.match(keyId, /^key_/);
      const ok = await fetch(`${second.url}/manage/v1/projects`, { headers: { authorization: `Bearer ${plaintext}` } });
      assert.equal(ok.status, 200);
      const listed = spawnSync(process.execPath, [BIN, 'keys', 'list'], { cwd, env: cleanEnv() });
      assert.ok(String(listed.stdout).includes(keyId));
      assert.ok(!String(listed.stdout).includes(plaintext ?? 'x'), 'list never shows plaintext');
      const revoked = spawnSync(process.execPath, [BIN, 'keys', 'revoke', keyId], { cwd, env: cleanEnv() });
      assert.equal(revoked.status, 0, String(revoked.stderr));
      await new Promise((r) => setTimeout(r, 1000));
      const denied = await fetch(`${second.url}/manage/v1/projects`, {
        headers: { authorization: `Bearer ${plaintext}` },
      });
      assert.equal(denied.status, 401);
    } finally {
      assert.equal(await stop(second), 0);
    }
  });
});

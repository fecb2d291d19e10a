// `switchyard serve` as started from a shell: --port, --host and --data-dir win over the SWITCHYARD_*
// environment, the start banner says where the gateway and its dashboard are, and a reader that
// stops early (`switchyard openapi | head -3`) ends the command quietly.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BIN, cleanEnv } from './run-cli.ts';

describe('switchyard serve flags and banner', () => {
  const root = mkdtempSync(join(tmpdir(), 'switchyard-serve-flags-'));
  let child: ChildProcess | undefined;
  after(() => {
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  test('flags win over the environment; the banner names the gateway and the dashboard', async () => {
    const cwd = join(root, 'serve');
    mkdirSync(cwd);
    const fromEnv = join(cwd, 'env-data');
    const fromFlag = join(cwd, 'flag-data');
    // Each of these would fail the start if it were used: no such address here, no such port.
    const env = { SWITCHYARD_PORT: 'not-a-port', SWITCHYARD_HOST: '203.0.113.9', SWITCHYARD_DATA_DIR: fromEnv };
    const started = Date.now();
    const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', fromFlag], {
      cwd,
      env: cleanEnv(env),
    });
    child = proc;
    let out = '';
    proc.stdout.on('data', (d) => {
      out += String(d);
    });
    proc.stderr.on('data', (d) => {
      out += String(d);
    });
    const banner = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner:\n${out}`)), 30_000);
      proc.stdout.on('data', () => {
        const m = /Switchyard is listening on (http:\/\/127\.0\.0\.1:(\d+))\n\s+Dashboard\s+(\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m);
        }
      });
      proc.once('exit', () => reject(new Error(`serve exited:\n${out}`)));
    });
    const [, base, port, dashboard] = banner;
    assert.notEqual(port, '0');
    assert.equal(dashboard, `${base}/ui/`);
    // A generous bound: only a start that rebuilds or reinstalls something fails it.
    assert.ok(Date.now() - started < 20_000, `started in ${Date.now() - started} ms`);
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    const page = await fetch(dashboard ?? '', { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.ok(readdirSync(fromFlag).length > 0, 'the store is created under --data-dir');
    assert.equal(existsSync(fromEnv), false, 'SWITCHYARD_DATA_DIR is not used when --data-dir is given');

    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    assert.equal(await exited, 0, out);
  });

  test('a bad --port is a usage error naming the flag', () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--port', '70000'], {
      cwd: root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--port/);
  });

  test('`switchyard openapi | head -3` prints three lines and exits quietly', () => {
    // The document is far larger than a pipe's buffer, so the writer is still writing when head exits.
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" openapi | head -3; exit "\${PIPESTATUS[0]}"`], {
      cwd: root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.stdout.split('\n').filter(Boolean).length, 3, r.stdout);
    assert.match(r.stdout, /^openapi: 3\.1/);
    assert.doesNotMatch(r.stderr, /EPIPE|Error|at /, r.stderr);
    assert.equal(r.status, 0, r.stderr);
  });
});

// SIGTERM with calls hanging on the upstream: past the drain time each caller gets an error answer
// (503 shutting_down, or an error record on a stream that already started), every call has its log
// row, and the process exits cleanly.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { startFakeUpstream } from '../../tools/fake-upstream/server.ts';

const KEY = 'sy-shutdown-test-key-0000000000';

test('SIGTERM past the drain time answers and logs every call in flight', async () => {
  const fake = await startFakeUpstream({ port: 0 });
  const dataDir = mkdtempSync(join(tmpdir(), 'sy-stop-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const url = `http://127.0.0.1:${port}`;
  const gw = spawn(process.execPath, ['bin/switchyard.js', 'serve'], {
    env: {
      ...process.env,
      SWITCHYARD_PORT: String(port),
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_ADMIN_KEY: KEY,
      SWITCHYARD_LOG_LEVEL: 'error',
      SWITCHYARD_SHUTDOWN_DRAIN_MS: '800',
    },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((r) => gw.once('exit', (code) => r(code)));
  try {
    for (let i = 0; i < 300; i++) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const add = await fetch(`${url}/manage/v1/providers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ vendor: 'openai', name: 'fake', api_key: 'sk-stop', base_url: `${fake.url}/openai/v1` }),
    });
    assert.equal(add.status, 201);
    const call = (model: string, stream: boolean) =>
      fetch(`${url}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] }),
        signal: AbortSignal.timeout(20_000),
      }).then(async (res) => ({ id: res.headers.get('x-svc-request-id'), status: res.status, text: await res.text() }));
    const hung = call('openai/gpt-4o-mini-hang', false);
    const stalled = call('openai/gpt-4o-mini-midstream-stall', true);
    await new Promise((r) => setTimeout(r, 500));
    gw.kill('SIGTERM');
    const [a, b] = await Promise.all([hung, stalled]);
    assert.equal(a.status, 503, a.text);
    assert.equal(JSON.parse(a.text).error.code, 'shutting_down');
    assert.equal(b.status, 200);
    const last = b.text.trim().split('\n\n').pop() ?? '';
    assert.match(last, /shutting down/, b.text);
    assert.equal(await exited, 0);
    const db = new SQLite(join(dataDir, 'switchyard.db'), { readonly: true });
    const rows = db.prepare('select id, status_code from request_logs where id in (?, ?)').all(a.id, b.id) as Array<{
      id: string;
      status_code: number;
    }>;
    db.close();
    assert.deepEqual(rows.map((r) => r.status_code).sort(), [503, 503]);
  } finally {
    if (gw.exitCode === null) gw.kill('SIGKILL');
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

// Memory under hostile load: 32 concurrent maximum-size chat bodies against a gateway process with
// the default limits. Requests beyond the in-flight body budget get 503 with retry-after at once,
// the process's peak RSS stays under 1 GB, and logged bodies are capped.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';

const KEY = 'sy-memory-test-key-000000000000';
let fake: FakeUpstream;
let gw: ChildProcess;
let url = '';
let dataDir = '';

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

before(async () => {
  fake = await startFakeUpstream({ port: 0 });
  dataDir = mkdtempSync(join(tmpdir(), 'sy-mem-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  url = `http://127.0.0.1:${port}`;
  gw = spawn(process.execPath, ['bin/switchyard.js', 'serve'], {
    env: {
      ...process.env,
      SWITCHYARD_PORT: String(port),
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_ADMIN_KEY: KEY,
      SWITCHYARD_LOG_LEVEL: 'error',
    },
    stdio: 'ignore',
  });
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const r = await fetch(`${url}/manage/v1/providers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ vendor: 'openai', name: 'fake', api_key: 'sk-mem', base_url: `${fake.url}/openai/v1` }),
  });
  assert.equal(r.status, 201);
});

after(async () => {
  gw?.kill('SIGTERM');
  await new Promise((r) => gw?.once('exit', r));
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('32 concurrent 31 MiB bodies: 503 beyond the budget, peak RSS under 1 GB', async () => {
  const text = 'a'.repeat(31 * 1024 * 1024);
  const body = Buffer.from(
    JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: text }] }),
  );
  const before = peakRssMb(gw.pid ?? 0);
  const results = await Promise.all(
    Array.from({ length: 32 }, async () => {
      try {
        const res = await fetch(`${url}/alpha/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(60_000),
        });
        await res.arrayBuffer();
        return { status: res.status, retryAfter: res.headers.get('retry-after') };
      } catch {
        // A refused upload may see its connection closed before the whole body was sent.
        return { status: 0, retryAfter: null };
      }
    }),
  );
  const peak = peakRssMb(gw.pid ?? 0);
  const ok = results.filter((r) => r.status === 200).length;
  const busy = results.filter((r) => r.status === 503);
  assert.ok(ok >= 1, JSON.stringify(results));
  assert.ok(busy.length >= 1, JSON.stringify(results));
  for (const b of busy) assert.equal(b.retryAfter, '1');
  assert.ok(
    results.every((r) => r.status === 200 || r.status === 503 || r.status === 0),
    JSON.stringify(results),
  );
  assert.ok(peak < 1024, `peak RSS ${peak.toFixed(0)} MB (before ${before.toFixed(0)} MB)`);
  console.log(
    `memory: ${ok} served, ${busy.length} refused with 503, peak RSS ${before.toFixed(0)} -> ${peak.toFixed(0)} MB`,
  );
});

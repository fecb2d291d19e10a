// Memory under hostile load: 32 concurrent 30 MiB chat bodies against a gateway process with the
// default limits. Requests beyond the in-flight body budget get 503 with retry-after at once, and
// every client reads an answer: the gateway keeps reading and dropping a refused body (a
// lingering close) instead of closing while the client is still sending, which a client saw as
// EPIPE or ECONNRESET. The process's peak RSS stays under 1 GiB, and logged bodies are capped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { type GatewayProcess, spawnGateway } from '../helpers/gateway-process.ts';

let fake: FakeUpstream;
let gw: GatewayProcess;

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

before(async () => {
  fake = await startFakeUpstream({ port: 0 });
  gw = await spawnGateway();
  assert.equal(await gw.addOpenAi(fake.url), 201);
});

after(async () => {
  await gw?.stop();
  await fake?.close();
});

test('32 concurrent 30 MiB bodies: every client gets a status, 503 beyond the budget, peak RSS under 1 GiB', async () => {
  const text = 'a'.repeat(30 * 1024 * 1024);
  const body = Buffer.from(
    JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: text }] }),
  );
  const before = peakRssMb(gw.child.pid ?? 0);
  const results = await Promise.all(
    Array.from({ length: 32 }, async () => {
      try {
        const res = await fetch(`${gw.url}/alpha/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(90_000),
        });
        await res.arrayBuffer();
        return { status: res.status, retryAfter: res.headers.get('retry-after'), error: null };
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        return { status: 0, retryAfter: null, error: cause?.code ?? cause?.message ?? String(err) };
      }
    }),
  );
  const peak = peakRssMb(gw.child.pid ?? 0);
  const statuses = results.map((r) => r.status);
  const ok = results.filter((r) => r.status >= 200 && r.status < 300).length;
  const busy = results.filter((r) => r.status === 503);
  const failed = results.filter((r) => r.status === 0);
  console.log(
    `memory: ${ok} served, ${busy.length} refused with 503, ${failed.length} without an answer, ` +
      `peak RSS ${before.toFixed(0)} -> ${peak.toFixed(0)} MB; statuses ${statuses.join(' ')}`,
  );
  assert.deepEqual(failed, [], 'every client reads an answer');
  assert.ok(
    statuses.every((s) => (s >= 200 && s < 300) || (s >= 400 && s < 500) || s === 503),
    statuses.join(' '),
  );
  assert.ok(ok >= 1, JSON.stringify(results));
  assert.ok(busy.length >= 1, JSON.stringify(results));
  for (const b of busy) assert.equal(b.retryAfter, '1');
  assert.ok(peak < 1024, `peak RSS ${peak.toFixed(0)} MB (before ${before.toFixed(0)} MB)`);
});

// Memory under hostile load: 32 concurrent maximum-size chat bodies against a gateway process with
// the default limits. Requests beyond the in-flight body budget get 503 with retry-after at once,
// the process's peak RSS stays under 1 GB, and logged bodies are capped.
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

test('32 concurrent 31 MiB bodies: 503 beyond the budget, peak RSS under 1 GB', async () => {
  const text = 'a'.repeat(31 * 1024 * 1024);
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
  const peak = peakRssMb(gw.child.pid ?? 0);
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

// Issue 38 item 1: one batch input line nested 200,000 arrays deep. It used to overflow the stack in
// the validation job, which then retried every second for about 17 minutes (a cancel did not stop
// it) while another project's calls slowed down a hundredfold. The batch must now fail validation
// within seconds, naming the line, and another project's latency must hold.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { batchLine, clients, type Json, pollUntil, projectKey, uploadLines } from '../batches/helpers.ts';
import { type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

const DEPTH = 200_000;
const nested = () => `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;

/**
 * A line whose body nests far past the JSON depth limit (about 400 KB), in a tool's parameter
 * schema: free-form JSON that the body's decoder passes on unchecked.
 */
const deepLine = (customId: string) =>
  JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url: '/v1/chat/completions',
    body: {
      model: VENDOR_MODELS.openai,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { x: 0 } } } }],
    },
  }).replace('"x":0', `"x":${nested()}`);

async function chatP50(key: string, calls: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const res = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: VENDOR_MODELS.openai, messages: [{ role: 'user', content: `ping ${i}` }] }),
    });
    await res.text();
    assert.equal(res.status, 200);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

describe('a batch line nested far too deep', () => {
  test('fails validation within seconds, naming the line; another project keeps its latency', async () => {
    const attacker = await projectKey(env, 'deep-attacker');
    const victim = await projectKey(env, 'deep-victim');
    await chatP50(victim.key, 10); // warm-up
    const baseline = await chatP50(victim.key, 40);

    const ok = batchLine('fine', { model: VENDOR_MODELS.openai, messages: [{ role: 'user', content: 'x' }] });
    // 1.1 MB: the deep line third, between ordinary ones.
    const file = await uploadLines(env, attacker.key, [ok, ok.replace('fine', 'fine2'), deepLine('deep'), nested()]);
    const { openai } = clients(env, attacker.key);
    const started = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const b = await openai.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      ids.push(b.id);
    }
    const during = await chatP50(victim.key, 40);
    const ended = await Promise.all(
      ids.map((id) =>
        pollUntil(
          () => openai.batches.retrieve(id),
          (b) => b.status !== 'validating',
          10_000,
        ),
      ),
    );
    const elapsed = Date.now() - started;
    console.log(
      `nested batches failed after ${elapsed} ms; victim p50 ${baseline.toFixed(1)} -> ${during.toFixed(1)} ms`,
    );
    for (const b of ended) {
      assert.equal(b.status, 'failed', JSON.stringify(b));
      const err = (b.errors?.data ?? [])[0] as Json | undefined;
      assert.ok(err, JSON.stringify(b.errors));
      assert.equal(err.line, 3);
      assert.match(String(err.message), /line 3/);
      assert.match(String(err.message), /128/);
    }
    assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
    assert.ok(during <= Math.max(2 * baseline, baseline + 10), `victim p50 ${baseline} -> ${during} ms`);
  });
});

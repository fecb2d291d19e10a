// One project's batch cannot take every batch slot of the organization: with a 40-item batch whose
// items all hang holding its share, another project's one-item batch still runs and ends.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { clients, pollUntil, projectKey } from './helpers.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env?.close();
});

const request = (id: string, model: string) => ({
  custom_id: id,
  params: { model, max_tokens: 20, messages: [{ role: 'user' as const, content: 'hi' }] },
});

test("another project's one-item batch ends within 15 s while a 40-item hanging batch runs", async () => {
  const hog = clients(env, (await projectKey(env, 'hog')).key).anthropic;
  const other = clients(env, (await projectKey(env, 'other')).key).anthropic;
  const hanging = await hog.messages.batches.create(
    { requests: Array.from({ length: 40 }, (_, i) => request(`h${i}`, 'openai/gpt-4o-mini-hang')) },
    { headers: { 'x-svc-batch-concurrency': '64' } },
  );
  // Let the hanging batch take every slot it can.
  await new Promise((r) => setTimeout(r, 1000));
  const started = Date.now();
  const small = await other.messages.batches.create({ requests: [request('one', 'openai/gpt-4o-mini')] });
  const ended = await pollUntil(
    () => other.messages.batches.retrieve(small.id),
    (b) => b.processing_status === 'ended',
    15_000,
  );
  assert.equal(ended.request_counts.succeeded, 1);
  assert.ok(Date.now() - started < 15_000);
  const still = await hog.messages.batches.retrieve(hanging.id);
  assert.equal(still.processing_status, 'in_progress');
  await hog.messages.batches.cancel(hanging.id);
});

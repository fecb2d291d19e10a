// Batch lifecycle on both storage dialects: a batch that outlives its window expires (finished items
// kept, the rest `expired`), each end fires its webhook event once, and the alpha expired batch keeps
// its partial output.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { api, type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';
import { type Receiver, startReceiver, waitFor } from '../webhooks/receiver.ts';
import { clients, type Json, pollUntil, projectKey, uploadLines } from './helpers.ts';

const request = (customId: string, model: string) => ({
  custom_id: customId,
  params: { model, max_tokens: 16, messages: [{ role: 'user' as const, content: `hi ${customId}` }] },
});

for (const d of await dialects()) {
  describe(`batch lifecycle (${d.name})`, { skip: d.skip }, () => {
    let env: ProxyEnv;
    let rx: Receiver;
    before(async () => {
      rx = await startReceiver(() => 200);
      env = await startProxyEnv({
        postgres: d.name === 'postgres',
        // A window of 1.5 s: items answered after 400 ms each, one at a time, cannot all finish.
        config: { batchWindowMs: 1500, batchConcurrency: 1 },
      });
      const hook = await api(env.gw, 'POST', '/manage/v1/webhooks/endpoints', {
        url: rx.url,
        event_types: ['batch.completed', 'batch.failed', 'batch.expired', 'batch.cancelled'],
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.json));
    });
    after(async () => {
      await env.close();
      await rx.close();
    });

    test('a batch past its window expires: finished items kept, the rest expired, one event', async () => {
      const p = await projectKey(env, `expiry-${d.name}`);
      const { anthropic } = clients(env, p.key);
      const slow = `${VENDOR_MODELS.openai}-slow-400`;
      const created = await anthropic.messages.batches.create({
        requests: Array.from({ length: 10 }, (_, i) => request(`e${i}`, slow)),
      });
      const ended = await pollUntil(
        () => anthropic.messages.batches.retrieve(created.id),
        (b) => b.processing_status === 'ended',
      );
      const c = ended.request_counts;
      assert.ok(c.succeeded >= 1 && c.expired >= 1, JSON.stringify(c));
      assert.equal(c.succeeded + c.expired, 10);
      const lines = [];
      for await (const l of await anthropic.messages.batches.results(created.id)) lines.push(l);
      assert.equal(lines.length, 10);
      assert.equal(lines.filter((l) => l.result.type === 'expired').length, c.expired);

      const expired = await waitFor('the batch.expired delivery', async () =>
        rx.received.some((r) => r.body.includes(created.id)) ? true : undefined,
      );
      assert.ok(expired);
      const mine = rx.received.filter((r) => r.body.includes(created.id));
      assert.equal(mine.length, 1, 'one event for the batch');
      assert.equal((JSON.parse(mine[0].body) as Json).type, 'batch.expired');
    });

    test('alpha: an expired batch keeps its partial output; counts add up', async () => {
      const p = await projectKey(env, `alpha-expiry-${d.name}`);
      const { openai } = clients(env, p.key);
      const lines = Array.from({ length: 8 }, (_, i) =>
        JSON.stringify({
          custom_id: `x${i}`,
          method: 'POST',
          url: '/v1/chat/completions',
          body: { model: `${VENDOR_MODELS.google}-slow-400`, messages: [{ role: 'user', content: `q${i}` }] },
        }),
      );
      const file = await uploadLines(env, p.key, lines);
      const created = await openai.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      const done = await pollUntil(
        () => openai.batches.retrieve(created.id),
        (b) => b.status === 'expired',
      );
      assert.ok(done.expired_at);
      assert.ok((done.request_counts?.completed ?? 0) >= 1);
      const out = await (await openai.files.content(done.output_file_id ?? '')).text();
      const err = await (await openai.files.content(done.error_file_id ?? '')).text();
      const all = [...out.split('\n'), ...err.split('\n')].filter((l) => l !== '');
      assert.equal(all.length, 8);
      assert.ok(err.includes('batch_expired'));
    });
  });
}

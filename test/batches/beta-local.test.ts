// Beta message batches on the local executor, through the official anthropic SDK: models of other
// vendors (translated), results in order with each custom_id once, cancel midway, delete refused
// before the end, and the log rows (one per call, plus the batch's one priced row).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';
import { clients, type Json, logRows, pollUntil, projectKey } from './helpers.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

const request = (customId: string, model: string, text: string) => ({
  custom_id: customId,
  params: { model, max_tokens: 64, messages: [{ role: 'user' as const, content: text }] },
});

describe('beta message batches, local executor', () => {
  test('google and openai models run translated; results come back in order, each custom_id once', async () => {
    const p = await projectKey(env, 'beta-local');
    const { anthropic } = clients(env, p.key);
    const created = await anthropic.messages.batches.create({
      requests: [
        request('q-google', VENDOR_MODELS.google, 'first question'),
        request('q-openai', VENDOR_MODELS.openai, 'second question'),
        request('q-bad', 'nobody/none', 'third question'),
      ],
    });
    assert.equal(created.type, 'message_batch');
    assert.equal(created.processing_status, 'in_progress');
    assert.equal(created.request_counts.processing, 3);
    assert.equal(created.results_url, null);
    const ended = await pollUntil(
      () => anthropic.messages.batches.retrieve(created.id),
      (b) => b.processing_status === 'ended',
    );
    assert.deepEqual(ended.request_counts, { processing: 0, succeeded: 2, errored: 1, canceled: 0, expired: 0 });
    assert.ok(ended.ended_at);
    assert.match(ended.results_url ?? '', /\/beta\/v1\/messages\/batches\/msgbatch_[0-9a-z]+\/results$/);
    const lines = [];
    for await (const line of await anthropic.messages.batches.results(created.id)) lines.push(line);
    assert.deepEqual(
      lines.map((l) => l.custom_id),
      ['q-google', 'q-openai', 'q-bad'],
    );
    const [g, o, bad] = lines;
    assert.equal(g.result.type, 'succeeded');
    assert.equal(o.result.type, 'succeeded');
    if (g.result.type === 'succeeded') {
      assert.equal(g.result.message.type, 'message');
      assert.equal(g.result.message.role, 'assistant');
    }
    assert.equal(bad.result.type, 'errored');

    const created_rows = await logRows(env, 'batch_create', p.id);
    assert.equal(created_rows.length, 1);
    assert.equal(created_rows[0].model_requested, VENDOR_MODELS.google, 'a beta batch is logged with its first model');
    const runs = await pollUntil(
      () => logRows(env, 'batch_execution', p.id),
      (rows) => rows.length === 1,
    );
    assert.ok((runs[0].cost_usd as number) > 0, 'the batch is priced once, with its items');
    // No row per item: the batch's items are not logged on their own.
    assert.equal((await logRows(env, 'message', p.id)).length, 0);
  });

  test('invalid bodies are refused whole with 400', async () => {
    const p = await projectKey(env, 'beta-invalid');
    const { anthropic } = clients(env, p.key);
    await assert.rejects(anthropic.messages.batches.create({ requests: [] }), (e: Json) => e.status === 400);
    await assert.rejects(
      anthropic.messages.batches.create({
        requests: [request('same', VENDOR_MODELS.openai, 'a'), request('same', VENDOR_MODELS.openai, 'b')],
      }),
      (e: Json) => e.status === 400,
    );
    await assert.rejects(
      anthropic.messages.batches.create({
        requests: [{ custom_id: 'x', params: { model: VENDOR_MODELS.openai, messages: [] } as never }],
      }),
      (e: Json) => e.status === 400,
    );
  });

  test('cancel midway keeps what finished and cancels the rest; delete is refused until it ended', async () => {
    const p = await projectKey(env, 'beta-cancel');
    const { anthropic } = clients(env, p.key);
    // The fake answers this model after 300 ms, so the batch is still running when it is cancelled.
    const slow = `${VENDOR_MODELS.openai}-slow-300`;
    const requests = Array.from({ length: 40 }, (_, i) => request(`r${i}`, slow, `question ${i}`));
    const created = await anthropic.messages.batches.create({ requests });
    await assert.rejects(anthropic.messages.batches.delete(created.id), (e: Json) => e.status === 400);
    await new Promise((r) => setTimeout(r, 400));
    const cancelling = await anthropic.messages.batches.cancel(created.id);
    assert.ok(['canceling', 'ended'].includes(cancelling.processing_status));
    const ended = await pollUntil(
      () => anthropic.messages.batches.retrieve(created.id),
      (b) => b.processing_status === 'ended',
    );
    const c = ended.request_counts;
    assert.equal(c.succeeded + c.canceled + c.errored, 40);
    assert.ok(c.canceled > 0, `some canceled: ${JSON.stringify(c)}`);
    const lines = [];
    for await (const line of await anthropic.messages.batches.results(created.id)) lines.push(line);
    assert.equal(lines.length, 40);
    assert.equal(new Set(lines.map((l) => l.custom_id)).size, 40);
    assert.equal(lines.filter((l) => l.result.type === 'canceled').length, c.canceled);
    const deleted = await anthropic.messages.batches.delete(created.id);
    assert.equal(deleted.type, 'message_batch_deleted');
    await assert.rejects(anthropic.messages.batches.retrieve(created.id), (e: Json) => e.status === 404);
  });

  test('another project cannot see the batch', async () => {
    const a = await projectKey(env, 'beta-a');
    const b = await projectKey(env, 'beta-b');
    const created = await clients(env, a.key).anthropic.messages.batches.create({
      requests: [request('only', VENDOR_MODELS.openai, 'hello')],
    });
    await assert.rejects(
      clients(env, b.key).anthropic.messages.batches.retrieve(created.id),
      (e: Json) => e.status === 404,
    );
    const listed = await clients(env, b.key).anthropic.messages.batches.list();
    assert.equal(listed.data.length, 0);
  });

  test('every batch endpoint left its log row with its request_type', async () => {
    for (const type of [
      'batch_create',
      'batch_list',
      'batch_retrieve',
      'batch_results',
      'batch_cancel',
      'batch_delete',
    ])
      assert.ok((await logRows(env, type)).length >= 1, `a ${type} row`);
  });
});

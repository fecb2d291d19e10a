// Alpha batches on the local executor, through the official openai SDK: files.create ->
// batches.create -> poll retrieve until completed -> files.content(output_file_id), with lines for
// anthropic, google and an @slug routing config; invalid lines go to the error file; cancel; the
// log rows of each call and the batch's one priced row.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';
import { batchLine, clients, type Json, logRows, pollUntil, projectKey, uploadLines } from './helpers.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

const chatBody = (model: string, text: string) => ({
  model,
  max_tokens: 64,
  messages: [{ role: 'user', content: text }],
});

const upload = (key: string, lines: string[]) => uploadLines(env, key, lines);

async function readJsonl(key: string, fileId: string): Promise<Json[]> {
  const res = await clients(env, key).openai.files.content(fileId);
  return (await res.text())
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Json);
}

describe('alpha batches, local executor', () => {
  test('lines for anthropic, google and an @slug complete; invalid lines go to the error file', async () => {
    const p = await projectKey(env, 'alpha-local');
    const cfg = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
      name: 'batch-fallback',
      strategy: 'fallback',
      config: { models: [`${VENDOR_MODELS.openai}-fail-500`, VENDOR_MODELS.anthropic] },
    });
    assert.equal(cfg.status, 201, JSON.stringify(cfg.json));
    const slug = (cfg.json as Json).slug as string;
    const file = await upload(p.key, [
      batchLine('a', chatBody(VENDOR_MODELS.anthropic, 'to anthropic')),
      batchLine('g', chatBody(VENDOR_MODELS.google, 'to google')),
      batchLine('s', chatBody(`@${slug}`, 'to the config')),
      batchLine('wrong-url', chatBody(VENDOR_MODELS.google, 'x'), '/v1/embeddings'),
      'not json at all',
      batchLine('a', chatBody(VENDOR_MODELS.google, 'a repeated custom_id')),
    ]);
    assert.match(file.id, /^file-sy/);
    const { openai } = clients(env, p.key);
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { purpose: 'eval' },
    });
    assert.equal(created.object, 'batch');
    assert.equal(created.status, 'validating');
    const done = await pollUntil(
      () => openai.batches.retrieve(created.id),
      (b) => ['completed', 'failed', 'expired', 'cancelled'].includes(b.status),
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.request_counts, { total: 6, completed: 3, failed: 3 });
    assert.deepEqual(done.metadata, { purpose: 'eval' });
    assert.ok((done.usage?.input_tokens ?? 0) > 0 && (done.usage?.output_tokens ?? 0) > 0, JSON.stringify(done.usage));
    assert.equal(done.usage?.total_tokens, (done.usage?.input_tokens ?? 0) + (done.usage?.output_tokens ?? 0));
    assert.ok(done.completed_at && done.in_progress_at && done.finalizing_at);
    const output = await readJsonl(p.key, done.output_file_id ?? '');
    assert.deepEqual(
      output.map((l) => l.custom_id),
      ['a', 'g', 's'],
    );
    for (const l of output) {
      const response = l.response as Json;
      assert.equal(response.status_code, 200);
      assert.equal((response.body as Json).object, 'chat.completion');
      assert.equal(l.error, null);
    }
    const s = output[2].response as Json;
    assert.match(String((s.body as Json).model), /claude/, 'the config fell back to anthropic');
    const errors = await readJsonl(p.key, done.error_file_id ?? '');
    assert.deepEqual(
      errors.map((l) => (l.error as Json).code),
      ['mismatched_url', 'invalid_json', 'duplicate_custom_id'],
    );
    assert.equal(errors.length, 3);

    for (const type of ['file_upload', 'batch_create', 'batch_retrieve', 'file_download'])
      assert.ok((await logRows(env, type, p.id)).length >= 1, `a ${type} row`);
    const runs = await pollUntil(
      () => logRows(env, 'batch_execution', p.id),
      (rows) => rows.length === 1,
    );
    assert.ok((runs[0].cost_usd as number) > 0);
    assert.equal((await logRows(env, 'chat_completion', p.id)).length, 0, 'items are not logged one by one');
    // Retrieving again records no second cost; the answer tells the batch's cost.
    const again = await openai.batches.retrieve(created.id).withResponse();
    assert.equal(Number(again.response.headers.get('x-svc-cost-usd')), runs[0].cost_usd);
    assert.equal((await logRows(env, 'batch_execution', p.id)).length, 1);
  });

  test('every line invalid fails the batch; bad create bodies are 400; unknown ids 404', async () => {
    const p = await projectKey(env, 'alpha-invalid');
    const { openai } = clients(env, p.key);
    const file = await upload(p.key, ['{"custom_id": 1}', 'nope']);
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const done = await pollUntil(
      () => openai.batches.retrieve(created.id),
      (b) => b.status === 'failed',
    );
    assert.equal(done.request_counts?.failed, 2);
    assert.ok(done.error_file_id);
    await assert.rejects(
      openai.batches.create({ input_file_id: file.id, endpoint: '/v1/nope' as never, completion_window: '24h' }),
      (e: Json) => e.status === 400,
    );
    await assert.rejects(
      openai.batches.create({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' }),
      (e: Json) => e.status === 404,
    );
    await assert.rejects(openai.batches.retrieve('batch_nope'), (e: Json) => e.status === 404);
    await assert.rejects(openai.batches.cancel('batch_nope'), (e: Json) => e.status === 404);
  });

  test('cancel midway: finished lines stay in the output, the rest go to the error file', async () => {
    const p = await projectKey(env, 'alpha-cancel');
    const { openai } = clients(env, p.key);
    const slow = `${VENDOR_MODELS.google}-slow-300`;
    const file = await upload(
      p.key,
      Array.from({ length: 40 }, (_, i) => batchLine(`r${i}`, chatBody(slow, `q${i}`))),
    );
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await pollUntil(
      () => openai.batches.retrieve(created.id),
      (b) => b.status === 'in_progress',
    );
    await new Promise((r) => setTimeout(r, 400));
    const cancelling = await openai.batches.cancel(created.id);
    assert.ok(['cancelling', 'cancelled', 'finalizing'].includes(cancelling.status), cancelling.status);
    const done = await pollUntil(
      () => openai.batches.retrieve(created.id),
      (b) => b.status === 'cancelled',
    );
    assert.ok(done.cancelled_at && done.cancelling_at);
    const output = done.output_file_id ? await readJsonl(p.key, done.output_file_id) : [];
    const errors = done.error_file_id ? await readJsonl(p.key, done.error_file_id) : [];
    assert.equal(output.length + errors.length, 40);
    assert.equal(new Set([...output, ...errors].map((l) => l.custom_id)).size, 40);
    assert.ok(errors.some((l) => (l.error as Json).code === 'batch_cancelled'));
    const listed = await openai.batches.list({ limit: 10 });
    assert.equal(listed.data[0].id, created.id);
  });
});

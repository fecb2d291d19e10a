// Pass-through batches: a beta batch of native anthropic models and an alpha batch whose input file
// lives upstream with that vendor's own models go to the vendor (its batch discount applies); the
// gateway serves them under its own ids, streams results and output files through, and records the
// batch's cost once however often it is read.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/gateway-process.ts';
import { api, type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';
import { clients, type Json, logRows, logTrace, pollUntil, projectKey, uploadLines } from './helpers.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

describe('pass-through batches', () => {
  test('beta: native anthropic models go to the vendor; results stream through the gateway', async () => {
    const p = await projectKey(env, 'pt-beta');
    const { anthropic } = clients(env, p.key);
    const params = (text: string) => ({
      model: VENDOR_MODELS.anthropic,
      max_tokens: 32,
      messages: [{ role: 'user' as const, content: text }],
    });
    const created = await anthropic.messages.batches.create({
      requests: [
        { custom_id: 'one', params: params('first') },
        { custom_id: 'two', params: params('second') },
      ],
    });
    assert.match(created.id, /^msgbatch_/);
    const ended = await pollUntil(
      () => anthropic.messages.batches.retrieve(created.id),
      (b) => b.processing_status === 'ended',
    );
    assert.equal(ended.id, created.id, 'the gateway id, not the vendor one');
    assert.equal(ended.request_counts.succeeded, 2);
    assert.ok(ended.results_url?.startsWith(env.gw.url), `results through the gateway: ${ended.results_url}`);
    const lines = [];
    for await (const l of await anthropic.messages.batches.results(created.id)) lines.push(l);
    assert.deepEqual(lines.map((l) => l.custom_id).sort(), ['one', 'two']);
    assert.ok(lines.every((l) => l.result.type === 'succeeded'));
    // Read again: the cost stays recorded once.
    await anthropic.messages.batches.retrieve(created.id);
    const rows = await logRows(env, 'batch_execution', p.id);
    assert.equal(rows.length, 1);
    assert.equal((await logTrace(env, rows[0].id as string)).mode, 'passthrough');
    assert.ok((rows[0].cost_usd as number) > 0);
    const deleted = await anthropic.messages.batches.delete(created.id);
    assert.equal(deleted.id, created.id);
  });

  test('alpha: an upstream input file with the vendor models passes through; the output file reads through the gateway', async () => {
    const p = await projectKey(env, 'pt-alpha');
    const { openai } = clients(env, p.key);
    const lines = ['a', 'b', 'c'].map((id) =>
      JSON.stringify({
        custom_id: id,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `question ${id}` }] },
      }),
    );
    // No X-Svc-Provider: the org's openai credential holds the file.
    const file = await uploadLines(env, p.key, lines, null);
    assert.doesNotMatch(file.id, /^file-sy/);
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    assert.match(created.id, /^batch_/);
    const done = await pollUntil(
      () => openai.batches.retrieve(created.id),
      (b) => b.status === 'completed',
    );
    assert.equal(done.request_counts?.completed, 3);
    const out = await (await openai.files.content(done.output_file_id ?? '')).text();
    const ids = out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as Json).custom_id);
    assert.deepEqual(ids.sort(), ['a', 'b', 'c']);
    await openai.batches.retrieve(created.id);
    const rows = await logRows(env, 'batch_execution', p.id);
    assert.equal(rows.length, 1, 'cost recorded once');
    assert.equal((await logTrace(env, rows[0].id as string)).mode, 'passthrough');
  });
});

describe('pass-through with the vendor down', () => {
  test('a beta batch for an unreachable anthropic answers 502 in the beta error shape, never 500', async () => {
    const gw = await startGateway();
    try {
      const port = await freePort();
      const r = await api(gw, 'POST', '/manage/v1/providers', {
        vendor: 'anthropic',
        name: 'down',
        api_key: 'sk-down',
        base_url: `http://127.0.0.1:${port}`,
      });
      assert.equal(r.status, 201, JSON.stringify(r.json));
      const res = await fetch(`${gw.url}/beta/v1/messages/batches`, {
        method: 'POST',
        headers: { 'x-api-key': gw.adminKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          requests: [
            {
              custom_id: 'x',
              params: { model: VENDOR_MODELS.anthropic, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
            },
          ],
        }),
      });
      assert.equal(res.status, 502);
      const body = (await res.json()) as Json;
      assert.equal(body.type, 'error');
      assert.equal((body.error as Json).type, 'api_error');
    } finally {
      await gw.close();
    }
  });
});

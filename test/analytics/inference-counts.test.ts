// What the analytics report counts as requests, end to end through the official openai SDK on a
// gateway per dialect: a direct call and a local batch of the same model fall in one model group
// (and one provider group), and the batch's polls, its file upload and a file listing count only
// when `request_type` names them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Report } from '../../src/logs/analytics-report.ts';
import { batchLine, clients, type Json, logRows, pollUntil, projectKey, uploadLines } from '../batches/helpers.ts';
import { dialects } from '../helpers/dialects.ts';
import { api, type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';

const MODEL = VENDOR_MODELS.openai as string;

/** Requests per group over the whole window (a run may straddle an hour). */
function groups(r: Report): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of r.series) out[String(p.group)] = (out[String(p.group)] ?? 0) + p.requests;
  return out;
}

for (const d of await dialects()) {
  describe(`what the analytics report counts as requests, on ${d.name}`, { skip: d.skip }, () => {
    let env: ProxyEnv;
    before(async () => {
      env = await startProxyEnv({ postgres: d.name === 'postgres' });
    });
    after(async () => env?.close());

    test('a batch and a direct call of one model are one group; polls and listings count only by name', async () => {
      const p = await projectKey(env, `counts-${d.name}`);
      const { openai } = clients(env, p.key);
      const ask = (text: string) => ({
        model: MODEL,
        max_tokens: 16,
        messages: [{ role: 'user' as const, content: text }],
      });
      await openai.chat.completions.create({ ...ask('direct') });
      const file = await uploadLines(env, p.key, [batchLine('a', ask('one')), batchLine('b', ask('two'))]);
      const created = await openai.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      const done = await pollUntil(
        () => openai.batches.retrieve(created.id),
        (b) => ['completed', 'failed', 'expired', 'cancelled'].includes(b.status),
      );
      assert.equal(done.status, 'completed', JSON.stringify(done));
      await openai.files.list();
      await pollUntil(
        () => logRows(env, 'batch_execution', p.id),
        (rows) => rows.length === 1,
      );

      const report = async (query: string): Promise<Report> => {
        const res = await api(env.gw, 'GET', `/manage/v1/analytics/report?project_id=${p.id}&${query}`);
        assert.equal(res.status, 200, JSON.stringify(res.json));
        return res.json as Report;
      };
      const byModel = await report('group_by=model');
      assert.deepEqual(groups(byModel), { 'gpt-4o-mini': 2 }, 'the chat call and the batch, under one model');
      assert.equal(byModel.totals.requests, 2);
      assert.deepEqual(groups(await report('group_by=provider')), { openai: 2 });
      assert.ok(byModel.totals.cost_usd > 0);

      const polls = (await logRows(env, 'batch_retrieve', p.id)).length;
      assert.ok(polls >= 1);
      assert.equal((await report('request_type=batch_retrieve')).totals.requests, polls);
      assert.equal((await report('request_type=inference,file_upload,file_list')).totals.requests, 4);
      const all = await report('request_type=all&group_by=request_type');
      const logged = await api(env.gw, 'GET', `/manage/v1/logs?project_id=${p.id}&limit=100`);
      const types: Record<string, number> = {};
      for (const row of (logged.json as Json).data as Json[]) {
        const t = String(row.request_type);
        types[t] = (types[t] ?? 0) + 1;
      }
      assert.deepEqual(groups(all), types);
      for (const t of ['chat_completion', 'batch_execution', 'file_upload', 'batch_create', 'file_list']) {
        assert.ok((types[t] ?? 0) > 0, `a ${t} row`);
      }
    });
  });
}

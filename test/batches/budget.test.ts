// Budgets apply to batches: one whose summed estimate exceeds what a blocking budget has left is
// refused at submission (beta: 402) or fails validation with budget_exceeded (alpha).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';
import { batchLine, clients, type Json, pollUntil, projectKey, uploadLines } from './helpers.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

async function tinyBudget(projectId: string): Promise<void> {
  const r = await api(env.gw, 'POST', '/manage/v1/budgets', {
    name: `tiny ${projectId}`,
    scope: { type: 'project', id: projectId },
    period: 'monthly',
    limit_usd: 0.001,
    action: 'block',
  });
  assert.equal(r.status, 201, JSON.stringify(r.json));
}

const params = (i: number) => ({
  model: VENDOR_MODELS.openai,
  max_tokens: 1000,
  messages: [{ role: 'user' as const, content: `question ${i}` }],
});

describe('budgets and batches', () => {
  test('beta: a batch that cannot fit the budget is refused with 402', async () => {
    const p = await projectKey(env, 'budget-beta');
    await tinyBudget(p.id);
    const { anthropic } = clients(env, p.key);
    // 200 requests of up to 1,000 output tokens each: far more than $0.001.
    const requests = Array.from({ length: 200 }, (_, i) => ({ custom_id: `r${i}`, params: params(i) }));
    await assert.rejects(anthropic.messages.batches.create({ requests }), (e: Json) => e.status === 402);
    // One small request still fits.
    const ok = await anthropic.messages.batches.create({
      requests: [{ custom_id: 'one', params: { ...params(0), max_tokens: 10 } }],
    });
    assert.equal(ok.processing_status, 'in_progress');
  });

  test('alpha: the batch fails validation with budget_exceeded', async () => {
    const p = await projectKey(env, 'budget-alpha');
    await tinyBudget(p.id);
    const { openai } = clients(env, p.key);
    const lines = Array.from({ length: 200 }, (_, i) => batchLine(`r${i}`, params(i)));
    const file = await uploadLines(env, p.key, lines);
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const done = await pollUntil(
      () => openai.batches.retrieve(created.id),
      (b) => b.status === 'failed',
    );
    assert.equal(((done.errors?.data ?? [])[0] as Json | undefined)?.code, 'budget_exceeded');
  });
});

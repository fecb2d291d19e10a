// A 402 tells a caller only about budgets it may see: a project key learns nothing of an
// organization-wide budget's name, id or spend; its own project's budget, and any budget for an
// org-wide key, are named with their figures.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env?.close();
});

async function refusal(key: string): Promise<{ status: number; message: string }> {
  const res = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const body = (await res.json()) as { error: { message: string } };
  return { status: res.status, message: body.error.message };
}

test("an org-wide budget's name and spend are not shown to a project key", async () => {
  const p = await api(env.gw, 'POST', '/manage/v1/projects', { name: 'tenant' });
  const projectId = (p.json as { id: string }).id;
  const k = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: 't', project_id: projectId });
  const projectKey = (k.json as { key: string }).key;
  const b = await api(env.gw, 'POST', '/manage/v1/budgets', {
    name: 'Acme board-approved AI spend',
    scope: { type: 'org' },
    period: 'monthly',
    limit_usd: 0.0000001,
  });
  assert.equal(b.status, 201, JSON.stringify(b.json));
  const budgetId = (b.json as { id: string }).id;
  const tenant = await refusal(projectKey);
  assert.equal(tenant.status, 402);
  assert.doesNotMatch(tenant.message, /Acme|board-approved/);
  assert.ok(!tenant.message.includes(budgetId), tenant.message);
  assert.doesNotMatch(tenant.message, /\$\d/);
  const admin = await refusal(env.gw.adminKey);
  assert.equal(admin.status, 402);
  assert.match(admin.message, /Acme board-approved AI spend/);
  assert.ok(admin.message.includes(budgetId));
  // The tenant's own project budget is named to it.
  await api(env.gw, 'DELETE', `/manage/v1/budgets/${budgetId}`);
  await api(env.gw, 'POST', '/manage/v1/budgets', {
    name: 'tenant cap',
    scope: { type: 'project', id: projectId },
    period: 'monthly',
    limit_usd: 0.0000001,
  });
  const own = await refusal(projectKey);
  assert.equal(own.status, 402);
  assert.match(own.message, /tenant cap/);
});

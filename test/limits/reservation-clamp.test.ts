// One call cannot hold an organization's budget by asking for more output than its model can
// write: the reservation counts max_tokens at most at the catalog's maximum for the model.
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

async function projectKey(name: string): Promise<string> {
  const p = await api(env.gw, 'POST', '/manage/v1/projects', { name });
  const k = await api(env.gw, 'POST', '/manage/v1/api-keys', { name, project_id: (p.json as { id: string }).id });
  return (k.json as { key: string }).key;
}

function chat(key: string, body: Record<string, unknown>) {
  return fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'openai/gpt-4o-mini-slow-1500',
      messages: [{ role: 'user', content: 'hi' }],
      ...body,
    }),
  });
}

test('a huge max_tokens reserves the model maximum; another project still fits in the org budget', async () => {
  // gpt-4o-mini writes at most 16,384 tokens ($0.0098 at $0.60/M); 1,735,686 would reserve $1.04.
  const r = await api(env.gw, 'POST', '/manage/v1/budgets', {
    name: 'org month',
    scope: { type: 'org' },
    period: 'monthly',
    limit_usd: 0.03,
  });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const greedy = await projectKey('greedy');
  const other = await projectKey('other');
  // The slow answer keeps the greedy call's reservation in place while the other project calls.
  const held = chat(greedy, { max_tokens: 1_735_686 });
  await new Promise((res) => setTimeout(res, 300));
  const meanwhile = await chat(other, { model: 'openai/gpt-4o-mini', max_tokens: 100 });
  const text = await meanwhile.text();
  assert.equal(meanwhile.status, 200, text);
  const first = await held;
  assert.equal(first.status, 200, await first.text());
});

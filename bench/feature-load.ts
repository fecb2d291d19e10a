// `bench:compare --limits`: a budget and rate limits that apply to every bench call and refuse none.
// `bench:compare --webhooks N`: N endpoints on the "after" gateway, subscribed to everything and
// pointing at a receiver in this process, plus the same stream of management writes (each one an
// event) on both gateways, so the proxy is measured while deliveries are being made.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_KEY, type Gateway } from './gateway.ts';

export interface WebhookLoad {
  received(): number;
  stop(): Promise<void>;
}

async function post(url: string, body: unknown): Promise<Response> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res;
}

export async function startWebhookLoad(
  endpoints: number,
  gateways: Record<'before' | 'after', Gateway>,
): Promise<WebhookLoad | undefined> {
  if (!(endpoints > 0)) return undefined;
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  for (let i = 0; i < endpoints; i++) {
    const res = await post(`${gateways.after.url}/manage/v1/webhooks/endpoints`, { url: hookUrl, event_types: ['*'] });
    if (res.status !== 201) throw new Error(`creating webhook endpoint ${i + 1} failed: ${res.status}`);
  }
  let n = 0;
  const timer = setInterval(() => {
    n++;
    for (const gw of [gateways.before, gateways.after])
      void post(`${gw.url}/manage/v1/api-keys`, { name: `bench-${n}` });
  }, 250);
  return {
    received: () => received,
    async stop() {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function applyLimits(gw: Gateway): Promise<void> {
  const budget = await post(`${gw.url}/manage/v1/budgets`, {
    name: 'bench',
    scope: { type: 'org' },
    period: 'daily',
    limit_usd: 1_000_000,
  });
  if (budget.status !== 201) throw new Error(`creating the bench budget failed: ${budget.status}`);
  const keys = await fetch(`${gw.url}/manage/v1/api-keys`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  const list = (await keys.json()) as { data: Array<{ id: string; prefix: string }> };
  for (const k of list.data) {
    const res = await fetch(`${gw.url}/manage/v1/api-keys/${k.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rate_limits: { rpm: 10_000_000, concurrency: 10_000 } }),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`setting rate limits on ${k.id} failed: ${res.status}`);
  }
}

/**
 * `bench:compare --guardrails`: an org policy in enforce mode whose output checks scan every delta
 * (mask, so the stream scanner holds back and rescans) and whose detectors never match the bench's
 * text, plus one input check, so the run measures the checking and not a rewrite.
 */
export async function applyGuardrails(gw: Gateway): Promise<void> {
  const res = await post(`${gw.url}/manage/v1/guardrails`, {
    name: 'bench',
    scope: { type: 'org' },
    mode: 'enforce',
    checks: [
      { type: 'pii', stage: 'output', action: 'mask', entities: ['email', 'credit_card', 'secret'] },
      { type: 'pii', stage: 'input', action: 'mask', entities: ['email'] },
    ],
  });
  if (res.status !== 201) throw new Error(`creating the bench guardrail policy failed: ${res.status}`);
  // A probe proves the policy is live: the fake echoes the prompt, so the masked address comes back.
  const probe = await fetch(`${gw.url}/alpha/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'write to probe@example.com' }],
    }),
  });
  const text = await probe.text();
  if (!probe.headers.get('x-svc-guardrails') || !text.includes('[EMAIL_1]'))
    throw new Error(`the bench guardrail policy did not apply: ${probe.status} ${text.slice(0, 200)}`);
}

// Two gateway instances sharing PostgreSQL: a config written through one is served by the other within 1 s.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

const pg = (await dialects()).find((d) => d.name === 'postgres');

async function dryVersion(gw: Gateway): Promise<unknown> {
  const r = await call(gw, 'POST', '/alpha/v1/dry-run', {
    model: '@shared',
    max_tokens: 5,
    messages: [{ role: 'user', content: 'hi' }],
  });
  return r.status === 200 ? (r.body as { dry_run: { config: { version: number } } }).dry_run.config.version : r.status;
}

async function within(ms: number, fn: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await fn()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not visible within ${ms} ms`);
}

describe('config changes across instances', { skip: pg?.skip }, () => {
  let a: Gateway;
  let b: Gateway;
  before(async () => {
    const masterKey = Buffer.alloc(32, 7).toString('base64');
    a = await startGateway({ postgres: true, config: { masterKey } });
    b = await startGateway({ postgres: true, pgSchema: a.pgSchema ?? undefined, config: { masterKey } });
    const p = await call(a, 'POST', '/manage/v1/providers', {
      vendor: 'openai',
      name: 'o',
      api_key: 'sk-test-0000000000',
      base_url: 'http://127.0.0.1:9/openai/v1',
    });
    assert.equal(p.status, 201, p.text);
  });
  after(async () => {
    await b?.close({ keepData: true });
    await a?.close();
  });

  it('sees create, update and delete within 1 s', async () => {
    const c = await call(a, 'POST', '/manage/v1/routing-configs', {
      name: 'shared',
      strategy: 'single',
      config: { model: 'openai/gpt-4o-mini' },
    });
    assert.equal(c.status, 201, c.text);
    await within(1000, async () => (await dryVersion(b)) === 1);
    await call(a, 'PATCH', `/manage/v1/routing-configs/${(c.body as { id: string }).id}`, {
      config: { model: 'openai/gpt-4o' },
    });
    await within(1000, async () => (await dryVersion(b)) === 2);
    await call(a, 'DELETE', `/manage/v1/routing-configs/${(c.body as { id: string }).id}`);
    await within(1000, async () => (await dryVersion(b)) === 404);
  });
});

// Dry runs: byte-identical envelopes through either family and the dry-run endpoint, no upstream call,
// ab_test split and stickiness over 2,000 dry runs, embedding configs and their dimension rules.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call } from '../helpers/gateway.ts';
import { api, type RoutingEnv, startRoutingEnv } from './env.ts';

type Json = Record<string, unknown>;
const DRY = { 'x-svc-dry-run': 'true' };

describe('dry runs', () => {
  let env: RoutingEnv;
  const upstreamCalls = async (): Promise<number> => {
    const r = await fetch(`${env.fake.url}/__requests`);
    return ((await r.json()) as { data: unknown[] }).data.length;
  };
  before(async () => {
    env = await startRoutingEnv();
    const mk = (body: Json) => api(env, 'POST', '/manage/v1/routing-configs', body);
    assert.equal(
      (
        await mk({
          name: 'rules',
          strategy: 'custom_rules',
          config: {
            rules: [
              {
                name: 'gold',
                when: { tags: { tier: 'gold' } },
                target: ['openai/gpt-4o', 'anthropic/claude-sonnet-4-5'],
              },
            ],
            default: 'openai/gpt-4o-mini',
          },
        })
      ).status,
      201,
    );
    await mk({
      name: 'ab',
      strategy: 'ab_test',
      config: {
        variants: [
          { name: 'control', weight: 3, model: 'openai/gpt-4o-mini' },
          { name: 'treatment', weight: 1, model: 'anthropic/claude-3-5-haiku-latest' },
        ],
      },
    });
    await mk({
      name: 'emb',
      strategy: 'fallback',
      embedding_dimensions: 256,
      config: { models: ['openai/text-embedding-ada-002', 'openai/text-embedding-3-small'] },
    });
    await fetch(`${env.fake.url}/__requests`, { method: 'DELETE' });
  });
  after(async () => env?.close());

  it('returns byte-identical envelopes through both families and makes no upstream call', async () => {
    const conversation = {
      model: '@rules',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'What is the capital of France?' },
        { role: 'assistant', content: 'Paris.' },
        { role: 'user', content: 'And of Italy?' },
      ],
      'svc:tags': { tier: 'gold' },
    };
    const a = await call(env.gw, 'POST', '/alpha/v1/chat/completions', conversation, DRY);
    const b = await call(env.gw, 'POST', '/beta/v1/messages', conversation, { 'x-svc-dry-run': '1' });
    const c = await call(env.gw, 'POST', '/alpha/v1/dry-run', conversation);
    assert.equal(a.status, 200, a.text);
    assert.equal(a.text, b.text);
    assert.equal(a.text, c.text);
    assert.deepEqual(JSON.parse(a.text), {
      dry_run: {
        policy: 'custom_rules',
        config: { slug: 'rules', version: 1 },
        target: { model: 'gpt-4o', provider: 'openai' },
        candidates: [
          { model: 'gpt-4o', provider: 'openai', eligible: true, reason: 'selected' },
          { model: 'claude-sonnet-4-5', provider: 'anthropic', eligible: true, reason: 'fallback' },
        ],
        matched_rule: 'gold',
        variant_bucket: null,
      },
    });
    const direct = await call(
      env.gw,
      'POST',
      '/alpha/v1/chat/completions',
      { ...conversation, model: 'gpt-4o-mini' },
      DRY,
    );
    assert.deepEqual((direct.body as { dry_run: Json }).dry_run.policy, 'direct');
    assert.equal((direct.body as { dry_run: Json }).dry_run.config, null);
    assert.equal(await upstreamCalls(), 0);
  });

  it('splits ab_test by weight within 5% over 2,000 dry runs, sticky per user', async () => {
    let control = 0;
    const body = { model: '@ab', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
    for (let batch = 0; batch < 40; batch++) {
      const rs = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          call(env.gw, 'POST', '/alpha/v1/dry-run', body, { 'x-svc-trace-id': `trace-${batch}-${i}` }),
        ),
      );
      for (const r of rs) if ((r.body as { dry_run: Json }).dry_run.variant_bucket === 'control') control++;
    }
    assert.ok(Math.abs(control / 2000 - 0.75) <= 0.05, `control share ${control / 2000}`);
    const buckets = new Set<unknown>();
    for (let i = 0; i < 10; i++) {
      const r = await call(env.gw, 'POST', '/beta/v1/messages', body, {
        ...DRY,
        'x-svc-user-id': 'user-42',
        'x-svc-trace-id': `t${i}`,
      });
      buckets.add((r.body as { dry_run: Json }).dry_run.variant_bucket);
    }
    assert.equal(buckets.size, 1);
    assert.equal(await upstreamCalls(), 0);
  });

  it('pins embedding dimensions, refusing candidates that cannot produce them', async () => {
    const dry = await call(env.gw, 'POST', '/alpha/v1/embeddings', { model: '@emb', input: 'hello' }, DRY);
    const env1 = (dry.body as { dry_run: { candidates: Json[]; target: Json } }).dry_run;
    assert.deepEqual(env1.candidates[0], {
      model: 'text-embedding-ada-002',
      provider: 'openai',
      eligible: false,
      reason: 'dimensions',
    });
    assert.deepEqual(env1.target, { model: 'text-embedding-3-small', provider: 'openai' });
    assert.equal(await upstreamCalls(), 0);
    const r = await call(env.gw, 'POST', '/alpha/v1/embeddings', { model: '@emb', input: ['a', 'b'] });
    assert.equal(r.status, 200, r.text);
    const data = (r.body as { data: Array<{ embedding: number[] }> }).data;
    assert.deepEqual(
      data.map((d) => d.embedding.length),
      [256, 256],
    );
    assert.equal(r.headers.get('x-svc-config'), 'emb');
    const sent = (await (await fetch(`${env.fake.url}/__requests`)).json()) as { data: Array<{ body: unknown }> };
    assert.match(JSON.stringify(sent.data.at(-1)?.body), /"dimensions":256/);
    assert.equal(
      (await call(env.gw, 'POST', '/alpha/v1/embeddings', { model: '@emb', input: 'x', dimensions: 256 })).status,
      200,
    );
    const conflict = await call(env.gw, 'POST', '/alpha/v1/embeddings', { model: '@emb', input: 'x', dimensions: 512 });
    assert.equal(conflict.status, 400);
    assert.equal(((conflict.body as { error: Json }).error as Json).code, 'dimension_conflict');
  });
});

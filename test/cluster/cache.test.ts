// The semantic cache across instances: an answer written through A is served by B (the entry goes
// through the store and the change bus), in B's own family, and a purge on B empties A too.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { call, clusterWithFake, ok, within } from './helpers.ts';

describe('replicated semantic cache', () => {
  const cluster = clusterWithFake(2);
  let key: string;
  let projectId: string;
  before(async () => {
    const a = cluster.nodes[0];
    const p = (await ok(a, 'POST', '/manage/v1/projects', {
      name: 'cached',
      settings: { semantic_cache: { enabled: true, similarity_threshold: 0.9 } },
    })) as { id: string };
    projectId = p.id;
    key = ((await ok(a, 'POST', '/manage/v1/api-keys', { name: 'cached', project_id: p.id })) as { key: string }).key;
  });

  test('written through A, a hit on B (beta family, a punctuation variant)', async () => {
    const [a, b] = cluster.nodes;
    const first = await call(
      a,
      'POST',
      '/alpha/v1/chat/completions',
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'What is a switchyard?' }] },
      key,
    );
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-svc-cache'), 'MISS');
    const { value: hit } = await within(3000, 'a hit on B', async () => {
      const r = await call(
        b,
        'POST',
        '/beta/v1/messages',
        {
          model: 'openai/gpt-4o-mini',
          max_tokens: 1024,
          messages: [{ role: 'user', content: 'what is a switchyard' }],
        },
        key,
      );
      return r.headers.get('x-svc-cache') === 'HIT' ? r : undefined;
    });
    assert.equal(hit.json.type, 'message');
    assert.ok(Number(hit.headers.get('x-svc-cache-similarity')) >= 0.9);
  });

  test('a purge on B empties A too', async () => {
    const [a, b] = cluster.nodes;
    await ok(b, 'DELETE', `/manage/v1/projects/${projectId}/cache`);
    await within(3000, 'A misses after the purge', async () => {
      const r = await call(
        a,
        'POST',
        '/alpha/v1/chat/completions',
        { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'What is a switchyard?' }] },
        key,
      );
      return r.headers.get('x-svc-cache') === 'MISS' ? true : undefined;
    });
  });

  test("a purge on B while A's new entry still waits for its store batch leaves no entry anywhere", async () => {
    const [a, b] = cluster.nodes;
    const question = {
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'Who built the first railway?' }],
    };
    const first = await call(a, 'POST', '/alpha/v1/chat/completions', question, key);
    assert.equal(first.headers.get('x-svc-cache'), 'MISS');
    // A writes its entries in batches up to 200 ms after the answer: this purge comes before.
    await ok(b, 'DELETE', `/manage/v1/projects/${projectId}/cache`);
    // Long enough for A's batch, its announcement and B's load, had they happened.
    await new Promise((r) => setTimeout(r, 600));
    const stats = (await ok(b, 'GET', `/manage/v1/projects/${projectId}/cache`)) as { entries: number };
    assert.equal(stats.entries, 0, 'no row came back after the purge');
    for (const g of [b, a]) {
      const r = await call(g, 'POST', '/alpha/v1/chat/completions', question, key);
      assert.equal(r.headers.get('x-svc-cache'), 'MISS');
    }
  });
});

// Shared health: failures seen by instance A open the breaker of that candidate on instance B too,
// so a config on B routes around it without B having failed a single call itself.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, chat, clusterWithFake, ok, within } from './helpers.ts';

describe('shared health', () => {
  const cluster = clusterWithFake(2);

  test("A's failures put the candidate in cooldown on B", async () => {
    const [a, b] = cluster.nodes;
    await ok(a, 'POST', '/manage/v1/routing-configs', {
      name: 'flaky first',
      slug: 'flaky',
      strategy: 'fallback',
      config: {
        attempts: [{ model: 'openai/gpt-4o-mini-fail-500' }, { model: 'openai/gpt-4o' }],
        retry_on: ['5xx'],
      },
    });
    const reasonOn = async (g: typeof a) => {
      const r = await call(g, 'POST', '/alpha/v1/dry-run', chat('@flaky'));
      // Until the new config reaches an instance, its dry run answers 404 (no dry_run to read).
      const plan = r.json.dry_run as { candidates: Array<{ model: string; reason: string }> } | undefined;
      return plan?.candidates.find((c) => c.model === 'gpt-4o-mini-fail-500')?.reason;
    };
    await within(3000, 'the config on B', async () => ((await reasonOn(b)) === 'selected' ? true : undefined));
    for (let i = 0; i < 3; i++) {
      const r = await call(a, 'POST', '/alpha/v1/chat/completions', chat('@flaky'));
      assert.equal(r.status, 200, 'served by the fallback');
    }
    assert.equal(await reasonOn(a), 'cooldown');
    await within(3000, 'cooldown on B', async () => ((await reasonOn(b)) === 'cooldown' ? true : undefined));
  });
});

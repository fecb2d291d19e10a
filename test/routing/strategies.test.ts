// Each strategy's decision, from config to ordered attempts and candidate trace.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HealthTracker } from '../../src/routing/health.ts';
import { compileStrategy, normalizeCreate } from '../../src/routing/normalize.ts';
import { ConfigError } from '../../src/routing/types.ts';
import { ctx, facts, ir } from './helpers.ts';

const models = (d: { attempts: Array<{ ref: { model: string } }> }) => d.attempts.map((a) => a.ref.model);

describe('config normalization', () => {
  it('accepts both body forms', () => {
    const a = normalizeCreate({
      project_id: null,
      name: 'Main',
      strategy: 'fallback',
      config: { attempts: [{ model: 'openai/gpt-4o', timeout_ms: 500 }], retry_on: ['429', '5xx', 'timeout'] },
    });
    const b = normalizeCreate({
      projectId: null,
      name: 'Main',
      slug: 'main2',
      policy: 'fallback_chain',
      config: { models: [{ model: 'anthropic/claude-sonnet-4-5', provider_credential_id: 'prov_1' }] },
    });
    assert.equal(a.strategy, 'fallback');
    assert.equal(a.slug, 'main');
    assert.equal(a.compiled.refs[0].timeoutMs, 500);
    assert.equal(b.strategy, 'fallback');
    assert.equal(b.compiled.refs[0].credentialId, 'prov_1');
  });
  it('refuses bad configs naming the field', () => {
    assert.throws(() => normalizeCreate({ name: 'x', strategy: 'nope' }), ConfigError);
    assert.throws(
      () => normalizeCreate({ name: 'x', strategy: 'fallback', config: { attempts: [{ model: 'mystery' }] } }),
      /config.attempts\[0\].model/,
    );
    assert.throws(
      () => normalizeCreate({ name: 'x', strategy: 'fallback', config: { models: ['gpt-4o'], retry_on: ['teapot'] } }),
      /retry_on/,
    );
  });
});

describe('strategies', () => {
  it('single and fallback keep the written order', () => {
    const d = compileStrategy('fallback', { models: ['gpt-4o-fail-429', 'gpt-4o-mini'] }).decide(ctx());
    assert.deepEqual(models(d), ['gpt-4o-fail-429', 'gpt-4o-mini']);
    assert.deepEqual(
      d.candidates.map((c) => c.reason),
      ['selected', 'fallback'],
    );
    assert.equal(compileStrategy('single', { model: 'gpt-4o' }).decide(ctx()).attempts.length, 1);
  });

  it('cost_optimized picks the cheapest eligible candidate', () => {
    const c = compileStrategy('cost_optimized', { models: ['openai/gpt-4o', 'openai/gpt-4o-mini', 'openai/o1-mini'] });
    const d = c.decide(ctx());
    assert.equal(d.attempts[0].ref.model, 'gpt-4o-mini');
    assert.ok(d.candidates.every((x) => typeof x.score === 'number'));
    const withTools = facts({ ir: ir('hi', { tools: [{ name: 't', inputSchema: { type: 'object' } }] }) });
    const d2 = c.decide(ctx({ req: withTools }));
    const o1 = d2.candidates.find((x) => x.model === 'o1-mini');
    assert.deepEqual([o1?.eligible, o1?.reason], [false, 'no_tools']);
    const huge = c.decide(ctx({ req: facts({ estimatedTokens: 150_000 }) }));
    assert.ok(huge.candidates.every((x) => x.reason === 'context_window'));
    assert.equal(huge.attempts.length, 0);
  });

  it('latency_optimized ranks by recent p50 and explores', () => {
    const health = new HealthTracker();
    const c = compileStrategy('latency_optimized', { models: ['gpt-4o', 'gpt-4o-mini'], exploration: 0.1 });
    for (let i = 0; i < 5; i++) {
      health.record(c.refs[0], true, 300);
      health.record(c.refs[1], true, 50);
    }
    const d = c.decide(ctx({ health, random: () => 0.5 }));
    assert.equal(d.attempts[0].ref.model, 'gpt-4o-mini');
    assert.equal(d.candidates.find((x) => x.model === 'gpt-4o')?.score, 300);
    const explored = c.decide(ctx({ health, random: () => 0.01 }));
    assert.equal(explored.attempts[0].ref.model, 'gpt-4o');
  });

  it('cooled-down candidates are skipped with reason cooldown', () => {
    const health = new HealthTracker({ failureThreshold: 2, cooldownMs: 10_000 });
    const c = compileStrategy('fallback', { models: ['gpt-4o-fail-500', 'gpt-4o-mini'] });
    health.record(c.refs[0], false, 5);
    health.record(c.refs[0], false, 5);
    const d = c.decide(ctx({ health }));
    assert.deepEqual(models(d), ['gpt-4o-mini']);
    assert.deepEqual(d.candidates[0], {
      model: 'gpt-4o-fail-500',
      provider: 'openai',
      eligible: false,
      reason: 'cooldown',
    });
    // After the cooldown one probe goes through again.
    assert.deepEqual(models(c.decide(ctx({ health, now: Date.now() + 11_000 }))), ['gpt-4o-fail-500', 'gpt-4o-mini']);
  });

  it('ab_test splits by weight within 5% and is sticky per user', () => {
    const c = compileStrategy('ab_test', {
      variants: [
        { name: 'control', weight: 70, model: 'gpt-4o' },
        { name: 'treatment', weight: 30, model: 'gpt-4o-mini' },
      ],
    });
    let control = 0;
    for (let i = 0; i < 2000; i++) {
      if (c.decide(ctx({ req: facts({ traceId: `t-${i}` }) })).variantBucket === 'control') control++;
    }
    assert.ok(Math.abs(control / 2000 - 0.7) < 0.05, `control share ${control / 2000}`);
    const u = c.decide(ctx({ req: facts({ endUser: 'alice' }) })).variantBucket;
    for (let i = 0; i < 20; i++)
      assert.equal(c.decide(ctx({ req: facts({ endUser: 'alice', traceId: `x${i}` }) })).variantBucket, u);
    const d = c.decide(ctx({ req: facts({ endUser: 'alice' }) }));
    assert.equal(d.candidates.length, 2);
    assert.ok(d.candidates.some((x) => x.reason === 'variant_not_chosen'));
  });

  it('custom_rules: first matching rule wins, else default', () => {
    const c = compileStrategy('custom_rules', {
      rules: [
        { name: 'vip', when: { tags: { tier: 'gold' } }, target: 'gpt-4o' },
        {
          name: 'beta-tools',
          when: { family: 'beta', has_tools: false, headers: { 'x-team': 'ml' } },
          target: ['claude-sonnet-4-5', 'gpt-4o'],
        },
        { name: 'long', when: { min_tokens: 1000 }, target: 'gemini-2.5-pro' },
      ],
      default: 'gpt-4o-mini',
    });
    const pick = (f: Parameters<typeof facts>[0]) => {
      const d = c.decide(ctx({ req: facts(f) }));
      return [d.matchedRule, d.attempts[0]?.ref.model];
    };
    assert.deepEqual(pick({ tags: { tier: 'gold' } }), ['vip', 'gpt-4o']);
    assert.deepEqual(pick({ family: 'beta', headers: { 'x-team': 'ml' } }), ['beta-tools', 'claude-sonnet-4-5']);
    assert.deepEqual(pick({ estimatedTokens: 5000 }), ['long', 'gemini-2.5-pro']);
    assert.deepEqual(pick({}), ['default', 'gpt-4o-mini']);
    assert.throws(
      () =>
        compileStrategy('custom_rules', { rules: [{ when: { colour: 'red' }, target: 'gpt-4o' }], default: 'gpt-4o' }),
      /unknown condition/,
    );
  });

  it('ensemble and cascade plan every eligible candidate', () => {
    const e = compileStrategy('ensemble', { models: ['gpt-4o', 'gpt-4o-mini'], select: 'fastest' }).decide(ctx());
    assert.equal(e.mode, 'parallel_fastest');
    assert.equal(e.attempts.length, 2);
    assert.throws(() => compileStrategy('ensemble', { models: ['gpt-4o', 'gpt-4o-mini'], select: 'judge' }), /judge/);
    const k = compileStrategy('cascade', {
      steps: ['gpt-4o-mini', { model: 'gpt-4o', accept: { reject_empty: false } }],
    }).decide(ctx());
    assert.equal(k.mode, 'cascade');
    assert.equal(k.attempts[1].accept?.rejectEmpty, false);
    assert.equal(k.attempts[0].accept?.rejectInvalidJson, true);
  });
});

// The execution loop against scripted attempts: fallback rules, attempt timeouts, ensemble
// cancellation, cascade acceptance checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallSignal } from '../../src/ir/call-signal.ts';
import type { AttemptOutcome } from '../../src/ir/outcome.ts';
import { executePlan } from '../../src/routing/execute.ts';
import type { Executor } from '../../src/routing/execute-types.ts';
import { compileStrategy } from '../../src/routing/normalize.ts';
import type { PlannedAttempt } from '../../src/routing/types.ts';
import { ctx, failOutcome, hang, okOutcome } from './helpers.ts';

function executor(
  script: (step: PlannedAttempt, signal: CallSignal) => Promise<AttemptOutcome>,
): Executor & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    attempt(step, signal) {
      calls.push(step.ref.model);
      return script(step, signal);
    },
    cost: (_ref, usage) => usage.input * 1e-6,
  };
}

const byName = (step: PlannedAttempt, signal: CallSignal): Promise<AttemptOutcome> => {
  const m = step.ref.model;
  if (m.includes('fail-429')) return Promise.resolve(failOutcome(429, 'rate_limit'));
  if (m.includes('fail-500')) return Promise.resolve(failOutcome(500));
  if (m.includes('fail-400')) return Promise.resolve(failOutcome(400, 'invalid_request'));
  if (m.includes('hang')) return hang(signal);
  if (m.includes('badjson')) return Promise.resolve(okOutcome('{"answer": "unterminated'));
  if (m.includes('slow')) return new Promise((r) => setTimeout(() => r(okOutcome(`from ${m}`)), 150));
  return Promise.resolve(okOutcome(`from ${m}`));
};

const run = (strategy: Parameters<typeof compileStrategy>[0], config: Record<string, unknown>, wantsJson = false) => {
  const d = compileStrategy(strategy, config).decide(ctx());
  const ex = executor(byName);
  return executePlan(d, ex, { signal: new AbortController().signal, wantsJson }).then((r) => ({
    ...r,
    calls: ex.calls,
  }));
};

describe('execution loop', () => {
  it('falls back on retry_on matches only', async () => {
    const r = await run('fallback', { models: ['gpt-4o-fail-429', 'gpt-4o-mini'] });
    assert.equal(r.outcome.ok, true);
    assert.deepEqual(
      r.attempts.map((a) => [a.model, a.status, a.outcome]),
      [
        ['gpt-4o-fail-429', 429, 'error'],
        ['gpt-4o-mini', 200, 'success'],
      ],
    );
    const stop = await run('fallback', { models: ['gpt-4o-fail-400', 'gpt-4o-mini'] });
    assert.equal(stop.outcome.ok, false);
    assert.deepEqual(stop.calls, ['gpt-4o-fail-400']);
    const fourxx = await run('fallback', { models: ['gpt-4o-fail-400', 'gpt-4o-mini'], retry_on: ['4xx'] });
    assert.equal(fourxx.outcome.ok, true);
    const specific = await run('fallback', { models: ['gpt-4o-fail-500', 'gpt-4o-mini'], retry_on: ['503'] });
    assert.deepEqual(specific.calls, ['gpt-4o-fail-500']);
  });

  it('cuts a hanging attempt at its timeout_ms and moves on', async () => {
    const started = Date.now();
    const r = await run('fallback', {
      attempts: [
        { model: 'gpt-4o-hang', timeout_ms: 200 },
        { model: 'gpt-4o-mini', timeout_ms: 2000 },
      ],
      retry_on: ['timeout'],
    });
    const elapsed = Date.now() - started;
    assert.equal(r.outcome.ok, true);
    assert.equal(r.attempts[0].status, 504);
    assert.match(r.attempts[0].error ?? '', /timed out after 200 ms/);
    assert.ok(elapsed >= 190 && elapsed < 1500, `elapsed ${elapsed}`);
  });

  it('ensemble fastest returns the first success and cancels the rest', async () => {
    const r = await run('ensemble', { models: ['gpt-4o-slow', 'gpt-4o-mini', 'gpt-4o-hang'], select: 'fastest' });
    assert.equal(r.step?.ref.model, 'gpt-4o-mini');
    assert.deepEqual(
      r.attempts.map((a) => a.outcome),
      ['cancelled', 'success', 'cancelled'],
    );
  });

  it('ensemble judge asks the judge among the successes', async () => {
    const d = compileStrategy('ensemble', {
      models: ['gpt-4o', 'gpt-4o-mini', 'gpt-4o-fail-500'],
      select: 'judge',
      judge: 'gpt-4.1',
    }).decide(ctx());
    const ex = executor(byName);
    ex.judgePick = async (_j, answers) => {
      assert.equal(answers.length, 2);
      return 1;
    };
    const r = await executePlan(d, ex, { signal: new AbortController().signal, wantsJson: false });
    assert.equal(r.step?.ref.model, 'gpt-4o-mini');
    assert.ok(r.attempts.every((a) => typeof a.cost_usd === 'number'));
    assert.equal(r.attempts[2].outcome, 'error');
  });

  it('cascade escalates on invalid JSON, length and judge score', async () => {
    const r = await run('cascade', { steps: ['gpt-4o-mini-badjson', 'gpt-4o-json'] }, true);
    assert.equal(r.step?.ref.model, 'gpt-4o-json');
    assert.deepEqual(
      r.attempts.map((a) => [a.outcome, a.reason]),
      [
        ['rejected', 'invalid_json'],
        ['success', undefined],
      ],
    );
    const noJson = await run('cascade', { steps: ['gpt-4o-mini-badjson', 'gpt-4o'] }, false);
    assert.equal(noJson.step?.ref.model, 'gpt-4o-mini-badjson');

    const d = compileStrategy('cascade', {
      steps: ['gpt-4o-mini', 'gpt-4o'],
      accept: { judge: 'gpt-4.1', min_score: 7 },
    }).decide(ctx());
    const ex = executor(byName);
    ex.judgeScore = async () => 3;
    const judged = await executePlan(d, ex, { signal: new AbortController().signal, wantsJson: false });
    assert.equal(judged.step?.ref.model, 'gpt-4o');
    assert.deepEqual([judged.attempts[0].reason, judged.attempts[0].score], ['judge_score_below_threshold', 3]);
  });

  it('cascade keeps a rejected answer when the next step errors', async () => {
    const r = await run('cascade', { steps: ['gpt-4o-mini-badjson', 'gpt-4o-fail-500'] }, true);
    assert.equal(r.outcome.ok, true);
    assert.equal(r.step?.ref.model, 'gpt-4o-mini-badjson');
  });
});

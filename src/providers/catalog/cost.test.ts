import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeCost, formatCostHeader } from './cost.ts';

describe('computeCost', () => {
  it('prices input and output per 1M tokens', () => {
    const r = computeCost('openai', 'gpt-4o-mini', { input: 1_000_000, output: 500_000 });
    assert.equal(r.known, true);
    assert.equal(r.costUsd, 0.45);
    assert.deepEqual(r.breakdown, { input: 0.15, output: 0.3, cacheRead: 0, cacheWrite: 0 });
  });

  it('bills cache reads at 0.1x and 5-minute writes at 1.25x input (Anthropic)', () => {
    // claude-sonnet-4-5: $3 input, $15 output per 1M.
    const r = computeCost('anthropic', 'claude-sonnet-4-5-20250929', {
      input: 1000,
      output: 500,
      cacheRead: 10_000,
      cacheWrite: 2000,
    });
    assert.deepEqual(r.breakdown, { input: 0.003, output: 0.0075, cacheRead: 0.003, cacheWrite: 0.0075 });
    assert.equal(r.costUsd, 0.021);
  });

  it('uses the long-context tier past the threshold', () => {
    const short = computeCost('google', 'gemini-2.5-pro', { input: 200_000, output: 0 });
    const long = computeCost('google', 'gemini-2.5-pro', { input: 200_001, output: 1_000_000 });
    assert.equal(short.costUsd, 0.25);
    assert.equal(long.breakdown.input, 0.5000025);
    assert.equal(long.breakdown.output, 15);
  });

  it('halves every rate for batch calls', () => {
    const r = computeCost('openai', 'gpt-4o-mini', { input: 1_000_000, output: 1_000_000 }, { batch: true });
    assert.equal(r.costUsd, 0.375);
  });

  it('rounds to 1e-9 and treats missing or bad counts as zero', () => {
    const r = computeCost('openai', 'gpt-5-nano', { input: 7, output: Number.NaN, cacheRead: -3 });
    assert.equal(r.costUsd, 0.00000035);
    assert.equal(computeCost('openai', 'gpt-4.1-nano', { input: 1, output: 1 }).costUsd, 0.0000005);
  });

  it('prices embeddings by input', () => {
    const r = computeCost('bedrock', 'amazon.titan-embed-text-v2:0', { input: 500_000, output: 0 });
    assert.equal(r.costUsd, 0.01);
  });

  it('returns 0 with a warning for unknown models, never throws', () => {
    const r = computeCost('openai', 'fake-tools-thinking', { input: 100, output: 100 });
    assert.equal(r.known, false);
    assert.equal(r.costUsd, 0);
    assert.deepEqual(r.breakdown, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    assert.match(r.warning ?? '', /openai\/fake-tools-thinking/);
  });
});

describe('formatCostHeader', () => {
  it('writes plain decimals without exponents', () => {
    assert.equal(formatCostHeader(0.000123), '0.000123');
    assert.equal(formatCostHeader(1.23e-7), '0.000000123');
    assert.equal(formatCostHeader(12.5), '12.5');
    assert.equal(formatCostHeader(100), '100');
    assert.equal(formatCostHeader(0), '0');
    assert.equal(formatCostHeader(1e-12), '0');
    assert.equal(formatCostHeader(Number.NaN), '0');
  });
});

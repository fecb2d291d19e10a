import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTextTokens, estimateTextTokens } from './encoding.ts';

const paragraph =
  'Switchyard sends each call to one of seven vendors, translating between wire formats, and records ' +
  'the cost, latency and token counts of every attempt so budgets and routing can use them. ';

describe('estimateTextTokens', () => {
  it('is exact for short and medium texts, cached or not', () => {
    const text = paragraph.repeat(10);
    assert.equal(estimateTextTokens('Hello, world!'), 4);
    assert.equal(estimateTextTokens(text), countTextTokens(text));
    assert.equal(estimateTextTokens(text), countTextTokens(text));
  });

  it('scales a sample for very large texts, staying close to the exact count', () => {
    const text = paragraph.repeat(600) + ' 🙂'.repeat(50);
    assert.ok(text.length > 64 * 1024);
    const exact = countTextTokens(text);
    const estimate = estimateTextTokens(text);
    assert.ok(Math.abs(estimate - exact) / exact < 0.05, `estimate ${estimate} vs exact ${exact}`);
  });

  it('makes repeated long texts cheap', (t) => {
    const text = `${paragraph.repeat(12)} unique-${Date.now()}`;
    estimateTextTokens(text);
    const n = 200;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) estimateTextTokens(text);
    const perCallUs = ((performance.now() - t0) * 1000) / n;
    t.diagnostic(`cached ${text.length}-char text: ${perCallUs.toFixed(2)} µs/call`);
    assert.ok(perCallUs < 500);
  });
});

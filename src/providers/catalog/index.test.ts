import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VENDORS, type VendorId } from '../types.ts';
import { listModels, lookupModel, vendorPriceSource } from './index.ts';

function idOf(vendor: VendorId, model: string): string | undefined {
  return lookupModel(vendor, model)?.id;
}

describe('lookupModel', () => {
  it('finds exact ids', () => {
    assert.equal(idOf('openai', 'gpt-4o-mini'), 'gpt-4o-mini');
    assert.equal(idOf('bedrock', 'amazon.nova-pro-v1:0'), 'amazon.nova-pro-v1:0');
    assert.equal(
      idOf('together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'),
      'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    );
  });

  it('is case-insensitive', () => {
    assert.equal(idOf('openai', 'GPT-4.1-Mini'), 'gpt-4.1-mini');
    assert.equal(
      idOf('together', 'meta-llama/llama-3.3-70b-instruct-turbo'),
      'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    );
  });

  it('strips date suffixes', () => {
    assert.equal(idOf('anthropic', 'claude-sonnet-4-5-20250929'), 'claude-sonnet-4-5');
    assert.equal(idOf('anthropic', 'claude-3-5-haiku-20241022'), 'claude-3-5-haiku');
    assert.equal(idOf('openai', 'gpt-4o-mini-2024-07-18'), 'gpt-4o-mini');
    assert.equal(idOf('openai', 'o3-2025-04-16'), 'o3');
  });

  it('prefers a dated catalog entry when it is asked for exactly', () => {
    assert.equal(idOf('openai', 'gpt-4o-2024-05-13'), 'gpt-4o-2024-05-13');
    assert.equal(idOf('openai', 'gpt-4o-2024-08-06'), 'gpt-4o');
  });

  it('strips Bedrock regional prefixes and ARNs', () => {
    assert.equal(
      idOf('bedrock', 'us.anthropic.claude-sonnet-4-20250514-v1:0'),
      'anthropic.claude-sonnet-4-20250514-v1:0',
    );
    assert.equal(
      idOf(
        'bedrock',
        'arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-3-5-haiku-20241022-v1:0',
      ),
      'anthropic.claude-3-5-haiku-20241022-v1:0',
    );
  });

  it('matches Bedrock ids written without date or version when that is unambiguous', () => {
    assert.equal(idOf('bedrock', 'anthropic.claude-sonnet-4-5'), 'anthropic.claude-sonnet-4-5-20250929-v1:0');
    assert.equal(idOf('bedrock', 'amazon.nova-pro-v1'), 'amazon.nova-pro-v1:0');
    // Titan v1 and v2 differ in price: an unversioned id must not pick one.
    assert.equal(idOf('bedrock', 'amazon.titan-embed-text'), undefined);
    assert.equal(idOf('bedrock', 'amazon.nova-pro-v2:0'), undefined);
  });

  it('accepts Fireworks ids with or without the account path', () => {
    const id = 'accounts/fireworks/models/llama-v3p1-70b-instruct';
    assert.equal(idOf('fireworks', id), id);
    assert.equal(idOf('fireworks', 'llama-v3p1-70b-instruct'), id);
  });

  it('normalizes Gemini resource names and revisions', () => {
    assert.equal(idOf('google', 'models/gemini-2.5-flash'), 'gemini-2.5-flash');
    assert.equal(idOf('google', 'gemini-2.0-flash-001'), 'gemini-2.0-flash');
    assert.equal(idOf('google', 'gemini-2.5-flash-lite-preview-06-17'), 'gemini-2.5-flash-lite');
  });

  it('falls back to the longest known prefix', () => {
    assert.equal(idOf('openai', 'gpt-4o-mini-tools-2'), 'gpt-4o-mini');
    assert.equal(idOf('openai', 'gpt-4.1-nano-fail-429'), 'gpt-4.1-nano');
    assert.equal(idOf('anthropic', 'claude-sonnet-4-5-thinking'), 'claude-sonnet-4-5');
    assert.equal(idOf('azure-openai', 'gpt-4o-prod'), 'gpt-4o');
  });

  it('returns undefined for ids it does not know, without guessing', () => {
    assert.equal(idOf('openai', 'fake-chat-tools'), undefined);
    assert.equal(idOf('openai', 'gpt-4.5-preview'), undefined);
    assert.equal(idOf('anthropic', 'claude-opus-4-6'), undefined);
    assert.equal(idOf('anthropic', 'gpt-4o'), undefined);
    assert.equal(idOf('azure-openai', 'my-deployment'), undefined);
    // Same answer the second time (memoized miss).
    assert.equal(idOf('azure-openai', 'my-deployment'), undefined);
  });

  it('is fast once warm', () => {
    const ids = ['gpt-4o-mini', 'claude-sonnet-4-5-20250929', 'unknown-model-x'];
    for (const id of ids) lookupModel('openai', id);
    const n = 100_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) lookupModel('openai', ids[i % 3]);
    const perCallUs = ((performance.now() - t0) * 1000) / n;
    assert.ok(perCallUs < 5, `lookup took ${perCallUs.toFixed(3)} µs`);
  });
});

describe('catalog data', () => {
  it('has a source note and models for every vendor', () => {
    for (const vendor of VENDORS) {
      assert.match(vendorPriceSource(vendor), /^https:\/\/\S+ .*as of 2026-11.*verify before billing/);
      assert.ok(listModels(vendor).length >= 5, vendor);
    }
  });

  it('holds plausible prices and limits', () => {
    for (const m of listModels()) {
      const where = `${m.vendor}/${m.id}`;
      assert.ok(m.price.input >= 0 && m.price.input < 200, where);
      assert.ok(m.price.cacheRead <= m.price.input, `${where} cache read above input`);
      assert.ok(m.contextWindow >= 512, where);
      if (m.kind === 'chat') {
        assert.ok(m.price.output >= m.price.input, `${where} output cheaper than input`);
        assert.ok(m.maxOutput > 0 && m.maxOutput <= m.contextWindow, where);
        assert.ok(m.price.cacheWrite >= m.price.input, `${where} cache write below input`);
      } else {
        assert.ok(m.dimensions && m.dimensions > 0, where);
        assert.equal(typeof m.supportsDimensions, 'boolean', where);
      }
    }
  });

  it('uses the documented cache multipliers for Anthropic', () => {
    const m = lookupModel('anthropic', 'claude-sonnet-4-5');
    assert.deepEqual(m?.price, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
  });

  it('describes embedding dimensions', () => {
    const titan = lookupModel('bedrock', 'amazon.titan-embed-text-v2:0');
    assert.equal(titan?.kind, 'embedding');
    assert.deepEqual(titan?.allowedDimensions, [256, 512, 1024]);
    assert.equal(titan?.dimensions, 1024);
    assert.equal(lookupModel('openai', 'text-embedding-3-small')?.supportsDimensions, true);
    assert.equal(lookupModel('openai', 'text-embedding-ada-002')?.supportsDimensions, false);
    assert.equal(lookupModel('bedrock', 'cohere.embed-english-v3')?.supportsDimensions, false);
  });

  it('carries capability flags for routing', () => {
    const mini = lookupModel('openai', 'gpt-4o-mini');
    assert.equal(mini?.tools, true);
    assert.equal(mini?.images, true);
    assert.equal(mini?.jsonSchema, true);
    assert.equal(lookupModel('openai', 'o3-mini')?.images, false);
    assert.equal(lookupModel('bedrock', 'meta.llama3-1-70b-instruct-v1:0')?.jsonMode, false);
    assert.equal(lookupModel('google', 'gemini-2.5-pro')?.contextWindow, 1048576);
  });
});

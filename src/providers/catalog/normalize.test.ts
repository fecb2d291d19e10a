import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPrefixMatch, looseModelId, normalizeModelId } from './normalize.ts';

describe('normalizeModelId', () => {
  it('strips Anthropic snapshot dates and latest tags', () => {
    assert.equal(normalizeModelId('anthropic', 'claude-sonnet-4-5-20250929'), 'claude-sonnet-4-5');
    assert.equal(normalizeModelId('anthropic', 'Claude-3-5-Haiku-Latest'), 'claude-3-5-haiku');
  });

  it('strips OpenAI dated snapshots but keeps chat-latest ids', () => {
    assert.equal(normalizeModelId('openai', 'gpt-4o-2024-08-06'), 'gpt-4o');
    assert.equal(normalizeModelId('azure-openai', 'gpt-35-turbo-0125'), 'gpt-35-turbo');
    assert.equal(normalizeModelId('openai', 'gpt-5-chat-latest'), 'gpt-5-chat-latest');
  });

  it('strips Bedrock regions, ARNs and the date before the version tail', () => {
    assert.equal(
      normalizeModelId('bedrock', 'us.anthropic.claude-sonnet-4-20250514-v1:0'),
      'anthropic.claude-sonnet-4-v1:0',
    );
    assert.equal(
      normalizeModelId('bedrock', 'arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-pro-v1:0'),
      'amazon.nova-pro-v1:0',
    );
    assert.equal(normalizeModelId('bedrock', 'global.amazon.nova-lite-v1:0'), 'amazon.nova-lite-v1:0');
  });

  it('strips the Fireworks account path and Gemini resource names and revisions', () => {
    assert.equal(normalizeModelId('fireworks', 'accounts/fireworks/models/deepseek-v3'), 'deepseek-v3');
    assert.equal(normalizeModelId('google', 'models/gemini-2.0-flash-001'), 'gemini-2.0-flash');
    assert.equal(normalizeModelId('google', 'gemini-2.5-flash-preview-05-20'), 'gemini-2.5-flash-preview');
    assert.equal(normalizeModelId('google', 'text-embedding-004'), 'text-embedding-004');
  });

  it('loose ids drop version tails', () => {
    assert.equal(looseModelId('amazon.titan-embed-text-v2:0'), 'amazon.titan-embed-text');
    assert.equal(looseModelId('cohere.embed-english-v3'), 'cohere.embed-english');
  });
});

describe('isPrefixMatch', () => {
  it('accepts suffixes on an id boundary', () => {
    assert.ok(isPrefixMatch('gpt-4o-mini-tools-2', 'gpt-4o-mini'));
    assert.ok(isPrefixMatch('claude-sonnet-4-5-thinking', 'claude-sonnet-4-5'));
  });

  it('rejects a following version number or a mid-word cut', () => {
    assert.ok(!isPrefixMatch('claude-opus-4-6', 'claude-opus-4'));
    assert.ok(!isPrefixMatch('gpt-4.5-preview', 'gpt-4'));
    assert.ok(!isPrefixMatch('amazon.nova-pro-v2:0', 'amazon.nova-pro'));
    assert.ok(!isPrefixMatch('gpt-4omega', 'gpt-4o'));
    assert.ok(!isPrefixMatch('gpt-4o', 'gpt-4o'));
  });
});

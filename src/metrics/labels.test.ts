import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endpointOf, errorKindLabel, modelLabel, statusClass, vendorLabel } from './labels.ts';

test('providers are the seven vendor ids (aliases folded), none or other', () => {
  assert.equal(vendorLabel('openai'), 'openai');
  assert.equal(vendorLabel('vendor_2'), 'anthropic');
  assert.equal(vendorLabel(null), 'none');
  assert.equal(vendorLabel('my-own-proxy'), 'other');
});

test('models are catalog ids; configs and unknown names are other', () => {
  assert.equal(modelLabel('openai', 'gpt-4o-mini', 'openai/gpt-4o-mini'), 'gpt-4o-mini');
  // Snapshots and scripted suffixes fold onto the catalog entry, so they add no series.
  assert.equal(modelLabel('anthropic', 'claude-sonnet-4-5-20250929', '@chat'), 'claude-sonnet-4-5');
  assert.equal(modelLabel('openai', 'gpt-4o-mini-fail-429', 'gpt-4o-mini-fail-429'), 'gpt-4o-mini');
  assert.equal(modelLabel('openai', 'totally-new-model', 'openai/totally-new-model'), 'other');
  assert.equal(modelLabel('not-a-vendor', 'gpt-4o', 'x'), 'other');
  // Refused before any model was picked: the requested one, bounded the same way.
  assert.equal(modelLabel(null, null, 'openai/gpt-4o-mini'), 'gpt-4o-mini');
  assert.equal(modelLabel(null, null, '@support-bot'), 'other');
  assert.equal(modelLabel(null, null, 'no-such-form'), 'other');
  assert.equal(modelLabel(null, null, ''), 'none');
});

test('status classes', () => {
  assert.equal(statusClass(200), '2xx');
  assert.equal(statusClass(429), '4xx');
  assert.equal(statusClass(499), '4xx');
  assert.equal(statusClass(502), '5xx');
  assert.equal(statusClass(0), '5xx');
});

test('endpoints and error kinds outside the known sets are other', () => {
  assert.deepEqual(endpointOf('message'), { family: 'beta', endpoint: 'messages' });
  assert.deepEqual(endpointOf('chat_completion'), { family: 'alpha', endpoint: 'chat_completions' });
  assert.deepEqual(endpointOf('something_new'), { family: 'other', endpoint: 'other' });
  assert.equal(errorKindLabel('rate_limit'), 'rate_limit');
  assert.equal(errorKindLabel('cosmic_rays'), 'other');
});

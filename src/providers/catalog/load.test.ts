import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseVendorFile } from './load.ts';

const base = {
  input: 1,
  output: 2,
  cache_read: 0.1,
  cache_write: 1.25,
  context_window: 1000,
  max_output: 100,
  tools: true,
  images: false,
  json_schema: true,
  json_mode: true,
  thinking: false,
};

describe('parseVendorFile', () => {
  it('maps snake_case data to ModelInfo', () => {
    const cat = parseVendorFile('openai', { vendor: 'openai', source: 'https://x', models: { m: base } });
    assert.equal(cat.models[0].id, 'm');
    assert.equal(cat.models[0].kind, 'chat');
    assert.deepEqual(cat.models[0].price, { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 });
  });

  it('rejects malformed entries loudly', () => {
    const bad = (models: unknown) => () => parseVendorFile('openai', { vendor: 'openai', source: 's', models });
    assert.throws(bad({ m: { ...base, input: -1 } }), /openai\/m: input/);
    assert.throws(bad({ m: { ...base, tools: 'yes' } }), /tools must be a boolean/);
    assert.throws(bad({ m: { ...base, kind: 'image' } }), /kind/);
    assert.throws(
      bad({ m: { ...base, kind: 'embedding', dimensions: 8, supports_dimensions: true, allowed_dimensions: [0] } }),
      /allowed_dimensions/,
    );
    assert.throws(() => parseVendorFile('openai', { vendor: 'google', source: 's', models: {} }), /names vendor/);
  });
});

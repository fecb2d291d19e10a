import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonDepthExceeds } from './json-depth.ts';

test('jsonDepthExceeds counts brackets outside strings only', () => {
  const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  assert.equal(jsonDepthExceeds(nested(64), 64), false);
  assert.equal(jsonDepthExceeds(nested(65), 64), true);
  assert.equal(jsonDepthExceeds(JSON.stringify({ a: '[[[[[[[[[[[[[[[[[[[[' }), 4), false);
  assert.equal(jsonDepthExceeds(JSON.stringify({ a: 'x\\"[[[[[[[[[[[[[[[' }), 4), false);
  assert.equal(jsonDepthExceeds(`{"a":${nested(5000)}}`, 128), true);
});

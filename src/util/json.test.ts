import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapJsonStrings } from './json.ts';

test('mapJsonStrings maps every string with the member name it sits under, and copies', () => {
  const seen: Array<[string, string | undefined]> = [];
  const value = { a: 'x', list: ['y', { b: 'z' }], n: 1, t: true, nil: null };
  const out = mapJsonStrings(value, (s, key) => {
    seen.push([s, key]);
    return s.toUpperCase();
  });
  assert.deepEqual(out, { a: 'X', list: ['Y', { b: 'Z' }], n: 1, t: true, nil: null });
  assert.deepEqual(seen, [
    ['x', 'a'],
    ['y', undefined],
    ['z', 'b'],
  ]);
  assert.equal(value.a, 'x', 'the input is left as it was');
  assert.equal(
    mapJsonStrings('top', (s, key) => `${s}:${key}`),
    'top:undefined',
  );
});

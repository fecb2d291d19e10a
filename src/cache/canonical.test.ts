import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, sha256Hex } from './canonical.ts';

test('keys are sorted at every depth and no whitespace is emitted', () => {
  const a = { b: [1, { z: true, a: null }], a: 'x', c: { y: 2, x: 1 } };
  const b = { c: { x: 1, y: 2 }, a: 'x', b: [1, { a: null, z: true }] };
  assert.equal(canonicalJson(a), '{"a":"x","b":[1,{"a":null,"z":true}],"c":{"x":1,"y":2}}');
  assert.equal(canonicalJson(a), canonicalJson(b));
});

test('round-trips to what JSON.parse reads, following JSON.stringify for undefined and -0', () => {
  const value = { s: 'quote " and \u2028 and é', n: -0, big: 1e21, small: 0.1, u: undefined, list: [undefined, 2] };
  const text = canonicalJson(value);
  assert.equal(text, '{"big":1e+21,"list":[null,2],"n":0,"s":"quote \\" and \u2028 and é","small":0.1}');
  assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
});

test('array order is kept (it is meaningful) and key order is by code unit, not locale', () => {
  assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  assert.equal(canonicalJson({ b: 1, B: 2, a: 3, _: 4 }), '{"B":2,"_":4,"a":3,"b":1}');
});

test('values JSON cannot carry are refused instead of silently becoming null', () => {
  assert.throws(() => canonicalJson({ x: Number.NaN }), /non-finite/);
  assert.throws(() => canonicalJson({ x: Number.POSITIVE_INFINITY }), /non-finite/);
  assert.throws(() => canonicalJson({ f: () => 1 }), /not JSON/);
});

test('sha256Hex is the standard digest of the UTF-8 text', () => {
  assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(sha256Hex('é').length, 64);
});

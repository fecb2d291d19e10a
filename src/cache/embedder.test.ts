import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cosine } from './embedder.ts';

const v = (...xs: number[]) => Float32Array.from(xs);

test('cosine is scale-free and spans -1..1', () => {
  assert.equal(cosine(v(1, 2, 3), v(2, 4, 6)), 1);
  assert.equal(cosine(v(1, 0), v(0, 5)), 0);
  assert.equal(cosine(v(1, 1), v(-3, -3)), -1);
  assert.ok(Math.abs(cosine(v(1, 0), v(1, 1)) - Math.SQRT1_2) < 1e-7);
});

test('the zero vector is similar to nothing', () => {
  assert.equal(cosine(v(0, 0), v(0, 0)), 0);
  assert.equal(cosine(v(0, 0), v(1, 0)), 0);
});

test('vectors of different spaces are refused', () => {
  assert.throws(() => cosine(v(1, 2), v(1, 2, 3)), /dimensions differ/);
});

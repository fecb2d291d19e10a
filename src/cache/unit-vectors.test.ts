import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../test/helpers/random.ts';
import { cosine } from './embedder.ts';
import { Sketch, UnitSlab } from './unit-vectors.ts';

const unitVector = (next: () => number, d: number) => {
  const v = Float32Array.from({ length: d }, () => next() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

test('a slab keeps each label its vector across block boundaries', () => {
  const next = seededRandom(3);
  const slab = new UnitSlab(16);
  const stored = Array.from({ length: 700 }, () => unitVector(next, 16));
  for (const [label, v] of stored.entries()) slab.set(label, v);
  slab.set(5, stored[600]);
  stored[5] = stored[600];
  for (const label of [0, 5, 255, 256, 511, 512, 699]) {
    assert.deepEqual(slab.get(label), stored[label]);
    assert.ok(slab.equals(label, stored[label]));
    assert.ok(Math.abs(slab.dot(label, stored[label]) - 1) < 1e-5);
  }
  assert.ok(!slab.equals(1, stored[2]));
  assert.ok(Math.abs(slab.dot(300, stored[301]) - cosine(stored[300], stored[301])) < 1e-5);
});

test('a sketch is unit length, the same for every instance, and keeps near vectors near', () => {
  const next = seededRandom(9);
  const a = new Sketch(256, 64);
  const b = new Sketch(256, 64);
  const out = new Array<number>(64);
  const again = new Array<number>(64);
  const v = unitVector(next, 256);
  a.project(v, out);
  b.project(v, again);
  assert.deepEqual(out, again);
  assert.ok(Math.abs(Math.hypot(...out) - 1) < 1e-9);
  // A small change to a vector stays a small change to its sketch; an unrelated vector does not.
  const near = v.map((x) => x + (next() - 0.5) * 0.01);
  const far = unitVector(next, 256);
  const sketchOf = (x: Float32Array) => {
    const o = new Array<number>(64);
    a.project(x, o);
    return Float32Array.from(o);
  };
  assert.ok(cosine(sketchOf(v), sketchOf(near)) > 0.99);
  assert.ok(cosine(sketchOf(v), sketchOf(far)) < 0.6);
  const zero = new Array<number>(64);
  a.project(new Float32Array(256), zero);
  assert.ok(zero.every((x) => x === 0));
});

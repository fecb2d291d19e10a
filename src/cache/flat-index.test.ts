import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../test/helpers/random.ts';
import { cosine } from './embedder.ts';
import { FlatIndex, type Neighbour } from './flat-index.ts';

const randomVector = (next: () => number, d: number) => Float32Array.from({ length: d }, () => next() * 2 - 1);

/** The obviously correct answer: every entry scored with cosine(), best first, ties to the smaller id. */
function bruteForce(entries: Map<string, Float32Array>, q: Float32Array): Neighbour | undefined {
  let best: Neighbour | undefined;
  for (const [id, v] of entries) {
    const similarity = cosine(q, v);
    if (!best || similarity > best.similarity || (similarity === best.similarity && id < best.id))
      best = { id, similarity };
  }
  return best;
}

test('nearest agrees with a brute-force cosine scan through adds, replacements and removals', () => {
  const next = seededRandom(42);
  const d = 32;
  const index = new FlatIndex(d, 2);
  const truth = new Map<string, Float32Array>();
  for (let step = 0; step < 3000; step++) {
    const r = next();
    const id = `e${Math.floor(next() * 400)}`;
    if (r < 0.6) {
      const v = randomVector(next, d);
      index.add(id, v);
      truth.set(id, v);
    } else if (r < 0.8) {
      assert.equal(index.remove(id), truth.delete(id));
    } else {
      const q = randomVector(next, d);
      const got = index.nearest(q);
      const want = bruteForce(truth, q);
      assert.equal(got?.id, want?.id, `step ${step}`);
      if (got && want) assert.ok(Math.abs(got.similarity - want.similarity) < 1e-5, `step ${step}`);
    }
    assert.equal(index.size, truth.size);
  }
  assert.ok(truth.size > 100, 'the scenario keeps a populated index');
});

test('a stored vector finds itself with similarity 1, whatever its length', () => {
  const next = seededRandom(7);
  const index = new FlatIndex(16);
  const v = randomVector(next, 16);
  index.add('a', v);
  index.add('b', randomVector(next, 16));
  const hit = index.nearest(v.map((x) => x * 3.5));
  assert.equal(hit?.id, 'a');
  assert.ok(Math.abs((hit?.similarity ?? 0) - 1) < 1e-6);
  assert.ok((hit?.similarity ?? 2) <= 1);
});

test('replacing an id keeps one entry; removing the last one empties the index', () => {
  const index = new FlatIndex(2);
  index.add('a', Float32Array.from([1, 0]));
  index.add('a', Float32Array.from([0, 1]));
  assert.equal(index.size, 1);
  assert.equal(index.nearest(Float32Array.from([0, 1]))?.similarity, 1);
  assert.ok(index.remove('a'));
  assert.ok(!index.remove('a'));
  assert.ok(!index.has('a'));
  assert.equal(index.nearest(Float32Array.from([0, 1])), undefined);
});

test('ties go to the smallest id, independent of insertion and removal order', () => {
  const index = new FlatIndex(2);
  for (const id of ['c', 'x', 'b', 'd']) index.add(id, Float32Array.from([1, 1]));
  index.remove('x'); // moves 'd' into the freed slot
  assert.equal(index.nearest(Float32Array.from([2, 2]))?.id, 'b');
});

test('the zero vector matches nothing; a wrong size is refused', () => {
  const index = new FlatIndex(3);
  index.add('a', Float32Array.from([1, 0, 0]));
  index.add('zero', new Float32Array(3));
  assert.equal(index.nearest(new Float32Array(3)), undefined);
  assert.equal(index.nearest(Float32Array.from([-1, 0, 0]))?.id, 'zero', 'similarity 0 beats -1');
  assert.throws(() => index.add('b', new Float32Array(4)), /expected 3 dimensions/);
  assert.throws(() => index.nearest(new Float32Array(2)), /expected 3 dimensions/);
  assert.throws(() => new FlatIndex(0), /positive integer/);
});

// A few milliseconds idle; the bound is generous so a loaded machine cannot fail it (timings are
// bench/cache-index.ts's job), while a scan gone quadratic still would.
test('a 10,000-entry partition of 256 dimensions answers without a gross slowdown', () => {
  const next = seededRandom(1);
  const index = new FlatIndex(256);
  for (let i = 0; i < 10_000; i++) index.add(`e${i}`, randomVector(next, 256));
  const q = randomVector(next, 256);
  index.nearest(q); // warm-up
  const started = performance.now();
  for (let i = 0; i < 10; i++) index.nearest(q);
  const ms = (performance.now() - started) / 10;
  assert.ok(ms < 250, `took ${ms.toFixed(2)} ms per query`);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../test/helpers/random.ts';
import { cosine } from './embedder.ts';
import { FlatIndex } from './flat-index.ts';
import { LocalEmbedder } from './local-embedder.ts';
import { PartitionIndex, type PartitionPhase } from './partition-index.ts';

const randomVector = (next: () => number, d: number) => Float32Array.from({ length: d }, () => next() * 2 - 1);

/**
 * What an approximate answer must satisfy whatever the graph looks like: it names a live entry, with
 * the similarity of that entry's current vector (a stale or removed vector would show here).
 */
function assertLive(got: ReturnType<PartitionIndex['nearest']>, truth: Map<string, Float32Array>, q: Float32Array) {
  assert.ok(got, 'an answer from a populated index');
  const v = truth.get(got.id);
  assert.ok(v, `${got.id} is not a live entry`);
  assert.ok(Math.abs(cosine(q, v) - got.similarity) < 1e-5, `${got.id}: similarity of an outdated vector`);
}

test('on random vectors the graph finds every stored vector and nearly every true neighbour', () => {
  const next = seededRandom(42);
  const d = 32;
  // The full ef at this size: a random query's nearest neighbour is far off, which is where a small
  // graph's narrower search (searchEf) gives up recall, and not what a cache hit looks like.
  const index = new PartitionIndex(d, { exactBelow: 100, efFloor: 64 });
  const reference = new FlatIndex(d);
  const stored: Float32Array[] = [];
  for (let i = 0; i < 3000; i++) {
    const v = randomVector(next, d);
    stored.push(v);
    index.add(`e${i}`, v);
    reference.add(`e${i}`, v);
  }
  assert.equal(index.phase, 'graph');
  assert.equal(index.size, 3000);
  for (let i = 0; i < stored.length; i += 7) {
    const hit = index.nearest(stored[i].map((x) => x * 2.5));
    assert.equal(hit?.id, `e${i}`);
    assert.ok(Math.abs((hit?.similarity ?? 0) - 1) < 1e-6 && (hit?.similarity ?? 2) <= 1);
  }
  let agree = 0;
  const queries = 500;
  for (let i = 0; i < queries; i++) {
    const q = randomVector(next, d);
    const got = index.nearest(q);
    const want = reference.nearest(q);
    if (got?.id === want?.id) agree++;
    else assert.ok(got && want && got.similarity <= want.similarity + 1e-6, 'never better than exact');
  }
  // 32 random dimensions are a hard case for a graph (no structure); real embeddings do better.
  assert.ok(agree / queries >= 0.95, `recall@1 ${agree / queries}`);
});

test('adds, replacements and removals stay consistent through every phase', () => {
  const next = seededRandom(7);
  const d = 16;
  const index = new PartitionIndex(d, { exactBelow: 60, buildInsertsPerAdd: 1 });
  const reference = new FlatIndex(d);
  const truth = new Map<string, Float32Array>();
  const phases = new Set<PartitionPhase>();
  // Grows to ~250 entries, shrinks to a handful (back to exact), then grows again.
  const ids = (step: number) => (step < 2500 || step >= 4000 ? 300 : 20);
  for (let step = 0; step < 6000; step++) {
    const r = next();
    const id = `e${Math.floor(next() * ids(step))}`;
    const removeShare = step >= 2500 && step < 4000 ? 0.6 : 0.15;
    if (r < 0.75 - removeShare) {
      const v = randomVector(next, d);
      index.add(id, v);
      reference.add(id, v);
      truth.set(id, v);
    } else if (r < 0.75) {
      const gone = truth.get(id);
      assert.equal(index.remove(id), truth.delete(id), `step ${step}`);
      reference.remove(id);
      if (gone && truth.size > 0) assert.notEqual(index.nearest(gone)?.id, id, 'a removed id is never returned');
    } else {
      const q = next() < 0.5 ? randomVector(next, d) : [...truth.values()][Math.floor(next() * truth.size)];
      if (!q) continue;
      const got = index.nearest(q);
      if (index.phase === 'graph') assertLive(got, truth, q);
      else assert.deepEqual(got, reference.nearest(q), `step ${step}: exact while ${index.phase}`);
    }
    assert.equal(index.size, truth.size);
    assert.equal(index.has(id), truth.has(id));
    phases.add(index.phase);
  }
  assert.deepEqual([...phases].sort(), ['building', 'exact', 'graph']);
  for (const [id, v] of truth) assert.equal(index.nearest(v)?.id, id, 'every live entry finds itself');
});

test('identical vectors are found without a graph search, ties going to the smallest id', () => {
  const next = seededRandom(5);
  const d = 64;
  // A graph this sparse and a search this narrow miss many exact neighbours: random 64-dimension
  // vectors are all about equally far apart. The hash of the unit vector does not depend on it.
  const index = new PartitionIndex(d, { exactBelow: 10, m: 2, efConstruction: 4, ef: 1 });
  const stored: Float32Array[] = [];
  for (let i = 0; i < 2000; i++) {
    stored.push(randomVector(next, d));
    index.add(`e${i}`, stored[i]);
  }
  for (let i = 0; i < stored.length; i++) {
    const hit = index.nearest(stored[i].map((x) => x * 4));
    assert.equal(hit?.id, `e${i}`);
    assert.equal(hit?.similarity, 1);
  }
  const v = randomVector(next, d);
  index.add('dup-b', v);
  index.add(
    'dup-a',
    v.map((x) => x / 2),
  );
  index.add(
    'dup-c',
    v.map((x) => x * 8),
  );
  assert.equal(index.nearest(v)?.id, 'dup-a');
  index.remove('dup-a');
  assert.equal(index.nearest(v)?.id, 'dup-b');
  index.add('dup-b', randomVector(next, d));
  assert.equal(index.nearest(v)?.id, 'dup-c');
  index.add('e7', v);
  assert.equal(index.nearest(v)?.id, 'dup-c', "'dup-c' < 'e7'");
  index.remove('dup-c');
  assert.equal(index.nearest(v)?.id, 'e7', 'a replaced vector is found under its new value');
  assert.notEqual(index.nearest(stored[7])?.id, 'e7', '... and no longer under its old one');
});

test('a build in progress answers exactly and misses nothing changed meanwhile; step() finishes it', () => {
  const next = seededRandom(3);
  const d = 24;
  const index = new PartitionIndex(d, { exactBelow: 200, buildInsertsPerAdd: 1 });
  const truth = new Map<string, Float32Array>();
  const put = (id: string) => {
    const v = randomVector(next, d);
    index.add(id, v);
    truth.set(id, v);
  };
  for (let i = 0; i < 200; i++) put(`e${i}`);
  assert.equal(index.phase, 'building');
  // Each add inserts one entry and queues one: the build does not catch up on its own here.
  for (let i = 200; i < 260; i++) put(`e${i}`);
  const replaced = truth.get('e5');
  assert.ok(replaced);
  put('e5'); // already in the graph: requeued with its new vector
  put('e250'); // still queued: its new vector is the one inserted
  for (const id of ['e1', 'e150', 'e255']) {
    assert.ok(index.remove(id));
    truth.delete(id);
  }
  assert.equal(index.phase, 'building');
  for (const [id, v] of truth) assert.equal(index.nearest(v)?.id, id);

  let calls = 0;
  while (index.step(1)) calls++;
  assert.ok(calls > 0);
  assert.equal(index.phase, 'graph');
  assert.equal(index.size, truth.size);
  for (const [id, v] of truth) {
    const hit = index.nearest(v);
    assert.equal(hit?.id, id);
    assert.ok(Math.abs((hit?.similarity ?? 0) - 1) < 1e-6);
  }
  assert.ok((index.nearest(replaced)?.similarity ?? 1) < 0.99, 'the old vector of e5 is gone');
  for (const id of ['e1', 'e150', 'e255']) assert.ok(!index.has(id));
  assert.equal(index.step(5), false, 'nothing left to do');
});

test('capacity doubles as the graph grows, slots of removed entries are reused, shrinking returns to exact', () => {
  const next = seededRandom(11);
  const d = 8;
  const index = new PartitionIndex(d, { exactBelow: 8 });
  assert.equal(index.capacity, 0);
  for (let i = 0; i < 1000; i++) index.add(`e${i}`, randomVector(next, d));
  assert.equal(index.phase, 'graph');
  assert.equal(index.capacity, 1024);
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 500; i++) assert.ok(index.remove(`e${round * 500 + i}`));
    for (let i = 0; i < 500; i++) index.add(`e${1000 + round * 500 + i}`, randomVector(next, d));
  }
  assert.equal(index.size, 1000);
  assert.equal(index.capacity, 1024, 'churn does not grow the graph');

  const live = Array.from({ length: 1000 }, (_, i) => `e${2500 + i}`);
  const kept = randomVector(next, d);
  index.add(live[0], kept);
  for (const id of live.slice(1, 997)) index.remove(id);
  assert.equal(index.phase, 'graph', '4 entries: not yet below half the threshold');
  index.remove(live[997]);
  assert.equal(index.phase, 'exact');
  assert.equal(index.capacity, 0);
  assert.equal(index.size, 3);
  const hit = index.nearest(kept);
  assert.equal(hit?.id, live[0], 'vectors read back from the slab');
  assert.ok(Math.abs((hit?.similarity ?? 0) - 1) < 1e-6);
});

test('the zero vector matches nothing; a wrong size or setting is refused', () => {
  for (const exactBelow of [100, 1]) {
    const index = new PartitionIndex(3, { exactBelow });
    assert.equal(index.nearest(Float32Array.from([1, 0, 0])), undefined, 'empty');
    index.add('a', Float32Array.from([1, 0, 0]));
    index.add('zero', new Float32Array(3));
    assert.equal(index.phase, exactBelow === 1 ? 'graph' : 'exact');
    assert.equal(index.nearest(new Float32Array(3)), undefined);
    assert.equal(index.nearest(Float32Array.from([-1, 0, 0]))?.id, 'zero', 'similarity 0 beats -1');
    assert.throws(() => index.add('b', new Float32Array(4)), /expected 3 dimensions/);
    assert.throws(() => index.nearest(new Float32Array(2)), /expected 3 dimensions/);
    assert.ok(index.remove('a') && index.remove('zero'));
    assert.equal(index.nearest(Float32Array.from([1, 0, 0])), undefined, 'emptied');
  }
  assert.throws(() => new PartitionIndex(0), /positive integer/);
  assert.equal(new PartitionIndex(4, { m: undefined }).phase, 'exact', 'undefined options take the defaults');
  assert.throws(() => new PartitionIndex(4, { m: 0 }), /m must be/);
  assert.throws(() => {
    new PartitionIndex(4).ef = 1.5;
  }, /ef must be/);
});

test('with buildInsertsPerAdd 0, add() leaves the whole build to step()', () => {
  const next = seededRandom(7);
  const index = new PartitionIndex(16, { exactBelow: 8, buildInsertsPerAdd: 0 });
  const truth = new Map<string, Float32Array>();
  for (let i = 0; i < 40; i++) {
    const v = randomVector(next, 16);
    truth.set(`e${i}`, v);
    index.add(`e${i}`, v);
  }
  assert.equal(index.phase, 'building');
  for (const [id, v] of truth) assert.equal(index.nearest(v)?.id, id);
  while (index.step(50));
  assert.equal(index.phase, 'graph');
  assert.equal(index.graphDimensions, 16, 'short vectors are not sketched');
  for (const [id, v] of truth) assert.equal(index.nearest(v)?.id, id);
});

test('a small graph searches with efFloor candidates, a larger one with one per 256 entries, up to ef', () => {
  const d = 8;
  const next = seededRandom(7);
  const index = new PartitionIndex(d, { exactBelow: 4, ef: 20, efFloor: 3, buildInsertsPerAdd: 8 });
  const vec = () => Float32Array.from({ length: d }, () => next() - 0.5);
  for (let i = 0; i < 10; i++) index.add(`e${i}`, vec());
  assert.equal(index.phase, 'graph');
  assert.equal(index.searchEf(), 3);
  for (let i = 10; i < 1500; i++) index.add(`e${i}`, vec());
  assert.equal(index.searchEf(), 6, 'ceil(1500 / 256)');
  for (let i = 1500; i < 6000; i++) index.add(`e${i}`, vec());
  assert.equal(index.searchEf(), 20, 'capped at ef');
  assert.ok(index.nearest(vec()) !== undefined);
});

test('long vectors are searched through a sketch and ranked by their exact similarity', () => {
  const next = seededRandom(5);
  const embedder = new LocalEmbedder(256);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const verbs = ['fix', 'explain', 'summarize', 'translate', 'compare', 'rewrite', 'schedule', 'cancel'];
  const things = ['invoice', 'router', 'poem', 'contract', 'playlist', 'budget', 'flight', 'kernel', 'recipe'];
  const names = ['Alice', 'Bob', 'Chen', 'Dmitri', 'Elena', 'Fatima', 'Hana', 'Ivan'];
  const texts = new Set<string>();
  while (texts.size < 1500) {
    texts.add(
      `Please ${pick(verbs)} the ${pick(things)} for ${pick(names)} by ${Math.floor(next() * 1000)} and ` +
        `keep the ${pick(things)} ${pick(verbs)}ed before ${pick(names)} sees it`,
    );
  }
  const prompts = [...texts];
  const index = new PartitionIndex(256, { exactBelow: 64, searchDimensions: 64, candidates: 8 });
  const reference = new FlatIndex(256);
  const truth = new Map<string, Float32Array>();
  prompts.forEach((p, i) => {
    const v = embedder.embedOne(p);
    index.add(`e${i}`, v);
    reference.add(`e${i}`, v);
    truth.set(`e${i}`, v);
  });
  while (index.step(50));
  assert.equal(index.phase, 'graph');
  assert.equal(index.graphDimensions, 64);

  let near = 0;
  let found = 0;
  for (let i = 0; i < 300; i++) {
    // One word dropped: close to a stored prompt, not identical to it.
    const words = pick(prompts).split(' ');
    words.splice(1 + Math.floor(next() * (words.length - 1)), 1);
    const q = embedder.embedOne(words.join(' '));
    const got = index.nearest(q);
    assertLive(got, truth, q);
    const want = reference.nearest(q);
    assert.ok(got && want && got.similarity <= want.similarity + 1e-6, 'never better than exact');
    if (want.similarity >= 0.9) {
      near++;
      if (got.similarity >= 0.9) found++;
    }
  }
  assert.ok(near >= 100, `${near} queries near a stored prompt`);
  assert.ok(found / near >= 0.98, `${found} of ${near} near neighbours found`);
  // A stored prompt in another case is the same vector: answered exactly, at similarity 1.
  const hit = index.nearest(embedder.embedOne(prompts[42].toUpperCase()));
  assert.equal(hit?.id, 'e42');
  assert.ok(Math.abs((hit?.similarity ?? 0) - 1) < 1e-6);
});

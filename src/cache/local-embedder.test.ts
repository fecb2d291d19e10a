import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cosine } from './embedder.ts';
import { LOCAL_DEFAULT_DIMENSIONS, LocalEmbedder, normalizeText } from './local-embedder.ts';

const e = new LocalEmbedder();
const sim = (a: string, b: string) => cosine(e.embedOne(a), e.embedOne(b));

test('vectors are deterministic, unit-length and of the configured size', async () => {
  const [a, b] = await e.embed(['What is the capital of France?', 'What is the capital of France?']);
  assert.deepEqual(a, b);
  assert.deepEqual(a, new LocalEmbedder().embedOne('What is the capital of France?'));
  assert.equal(a.length, LOCAL_DEFAULT_DIMENSIONS);
  const norm = Math.sqrt(a.reduce((s, x) => s + x * x, 0));
  assert.ok(Math.abs(norm - 1) < 1e-6, `norm ${norm}`);
  assert.equal(new LocalEmbedder(64).embedOne('x').length, 64);
});

test('the id names the vector space, so different sizes never share an index', () => {
  assert.equal(e.id, 'local-ngram-v1-256');
  assert.notEqual(new LocalEmbedder(512).id, e.id);
  assert.throws(() => new LocalEmbedder(8), /dimensions/);
  assert.throws(() => new LocalEmbedder(100.5), /dimensions/);
});

test('normalisation folds case, accents and punctuation', () => {
  assert.equal(normalizeText('  Crème Brûlée — “RECIPE”?! '), 'creme brulee recipe');
  assert.equal(normalizeText('İstanbul'), 'istanbul');
  assert.equal(normalizeText('...'), '');
});

test('case and punctuation do not matter; an unrelated prompt is far', () => {
  assert.ok(sim('What is the capital of France?', 'what is the capital of france') >= 0.9);
  assert.ok(sim('What is the capital of France?', 'Write a haiku about trains') < 0.5);
});

// Measured on the default 256 dimensions; the bounds leave room for a different hash seed.
test('near spellings stay close, a changed word or number falls below the default threshold', () => {
  assert.ok(sim('What is the capital of France?', 'what is the capitol of france?') > 0.75);
  assert.ok(sim('What is the capital of France?', 'What is the capital of Spain?') < 0.9);
  assert.ok(sim('Is 17 a prime number?', 'Is 21 a prime number?') < 0.6);
  assert.ok(sim('How do I reset my password?', 'How do I delete my account?') < 0.6);
  assert.ok(sim('dog bites man', 'man bites dog') < 0.9, 'word order counts a little');
  const order = (n: string) =>
    `Please write a short, friendly reply to the customer below. They ordered item ${n} last week and are ` +
    'asking when it will ship, whether they can change the delivery address, and if express shipping is ' +
    'available for their region.';
  assert.ok(sim(order('4417'), order('9032')) < 0.95);
});

test('an empty or punctuation-only text is the zero vector, similar to nothing', () => {
  assert.ok(e.embedOne('').every((x) => x === 0));
  assert.equal(sim('?!', 'What is the capital of France?'), 0);
});

test('non-Latin scripts without spaces still get character features', () => {
  assert.ok(sim('東京の天気は？', '東京の天気は') > 0.99);
  assert.ok(sim('東京の天気は？', '大阪の人口は？') < 0.5);
});

// The speed target (well under 200 ms, about 50 ms idle) is measured by bench/cache.ts; this bound
// is ten times it, so a busy CI machine cannot fail it and only an embedder gone quadratic would.
test('1,000 prompts of ~200 characters embed without a gross slowdown', async () => {
  const topics = ['databases', 'trains', 'gardening', 'tax returns', 'sourdough', 'TypeScript generics'];
  const prompt = (i: number) =>
    `Request ${i}: explain ${topics[i % topics.length]} to a beginner in three short paragraphs, with one ` +
    `example and one common mistake to avoid, please. Reference ${i * 7919}.`;
  const prompts = Array.from({ length: 1000 }, (_, i) => prompt(i).padEnd(200, ' thanks'));
  await e.embed(prompts.slice(0, 50)); // warm-up: the first calls pay for JIT compilation
  const started = performance.now();
  const vectors = await e.embed(prompts);
  const ms = performance.now() - started;
  assert.equal(vectors.length, 1000);
  assert.ok(ms < 2000, `took ${ms.toFixed(1)} ms`);
});

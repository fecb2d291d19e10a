// The `local` embedder: offline, deterministic, no model weights. It measures lexical closeness —
// shared words and character n-grams — not meaning: "capital of France?" and "capital of france"
// are near-identical to it, "capital of France" and "France's seat of government" are not. That is
// the honest default for a gateway that must run with no network (DESIGN §7 says so); projects that
// want paraphrase matching configure an embedding model instead.
//
// Features, each hashed with a sign bit into a fixed number of dimensions ("feature hashing"):
// - character 3-grams of the normalised text, across word boundaries (typos and plurals stay close);
// - character 4-grams, which separate words that merely share common 3-grams ("the", "ing");
// - words, and words containing a digit at a much higher weight: "order 4417" and "order 9032", or
//   "is 17 prime" and "is 21 prime", want different answers although they differ by a few letters;
// - word bigrams, so that "dog bites man" and "man bites dog" are not one bag of words.
// The sign bit makes collisions cancel on average instead of piling up, which keeps 256 dimensions
// usable. The vector is L2-normalised, so cosine similarity is a plain dot product.

import type { Embedder } from './embedder.ts';

export const LOCAL_DEFAULT_DIMENSIONS = 256;

/** Bumped with any change to normalisation, features or weights: it is part of the embedder id. */
const FEATURE_VERSION = 1;

// Relative weights, tuned on the pairs in local-embedder.test.ts: they keep a one-word or one-number
// change below the 0.95 default threshold for prompts of a sentence or two (a single changed word in
// a long prompt stays above it: that is what a lexical measure is); a typo or a dropped word scores
// about 0.8, so at 0.95 this embedder serves little beyond case, punctuation and spacing variants.
const WEIGHT_GRAM3 = 1;
const WEIGHT_GRAM4 = 1;
const WEIGHT_WORD = 2;
const WEIGHT_NUMBER = 8;
const WEIGHT_BIGRAM = 1;

// Distinct seeds keep the word "the" and the 3-gram "the" from landing on the same dimension.
const SEED_GRAM3 = 0x811c9dc5;
const SEED_GRAM4 = 0x2f8a1c07;
const SEED_WORD = 0x5bd1e995;
const SEED_BIGRAM = 0x1b873593;

const COMBINING_MARKS = /\p{M}+/gu;
const NON_WORD = /[^\p{L}\p{N}]+/gu;

/**
 * Lower case, accents folded (NFKD then marks dropped: "Café" -> "cafe", full-width digits -> ASCII),
 * every run of punctuation or space turned into one space, trimmed.
 */
export function normalizeText(text: string): string {
  // Lower-cased first: lower-casing can itself produce combining marks ("İ" -> "i" + dot above).
  return text.toLowerCase().normalize('NFKD').replace(COMBINING_MARKS, '').replace(NON_WORD, ' ').trim();
}

/** murmur3's 32-bit finaliser: FNV-1a alone leaves the low bits of short inputs poorly mixed. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over the UTF-16 code units of s[start, end), finalised. No substring is allocated. */
function hashRange(s: string, start: number, end: number, seed: number): number {
  let h = seed;
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

export class LocalEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;

  constructor(dimensions: number = LOCAL_DEFAULT_DIMENSIONS) {
    if (!Number.isInteger(dimensions) || dimensions < 16 || dimensions > 65_536) {
      throw new RangeError(`LocalEmbedder: dimensions must be an integer from 16 to 65536, got ${dimensions}`);
    }
    this.dimensions = dimensions;
    this.id = `local-ngram-v${FEATURE_VERSION}-${dimensions}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  /** Synchronous form, for callers that batch themselves. An empty text gives the zero vector. */
  embedOne(text: string): Float32Array {
    const acc = new Float64Array(this.dimensions);
    const norm = normalizeText(text);
    if (norm !== '') {
      // Padded so that the first and last letters also start and end grams.
      const padded = ` ${norm} `;
      this.addGrams(acc, padded, 3, SEED_GRAM3, WEIGHT_GRAM3);
      this.addGrams(acc, padded, 4, SEED_GRAM4, WEIGHT_GRAM4);
      this.addWords(acc, padded);
    }
    return normalized(acc);
  }

  private add(acc: Float64Array, h: number, weight: number): void {
    // The top bit is the sign; the rest picks the dimension.
    acc[(h & 0x7fffffff) % this.dimensions] += h & 0x80000000 ? -weight : weight;
  }

  private addGrams(acc: Float64Array, s: string, n: number, seed: number, weight: number): void {
    for (let i = 0; i + n <= s.length; i++) this.add(acc, hashRange(s, i, i + n, seed), weight);
  }

  /** `s` is normalised and padded: words are the runs between single spaces. */
  private addWords(acc: Float64Array, s: string): void {
    let start = 1;
    let previous = -1;
    let digit = false;
    for (let i = 1; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c !== 32) {
        if (c >= 48 && c <= 57) digit = true;
        continue;
      }
      this.add(acc, hashRange(s, start, i, SEED_WORD), digit ? WEIGHT_NUMBER : WEIGHT_WORD);
      // The bigram is the text from the previous word's start to this word's end, space included.
      if (previous >= 0) this.add(acc, hashRange(s, previous, i, SEED_BIGRAM), WEIGHT_BIGRAM);
      previous = start;
      start = i + 1;
      digit = false;
    }
  }
}

function normalized(acc: Float64Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < acc.length; i++) sum += acc[i] * acc[i];
  const out = new Float32Array(acc.length);
  if (sum === 0) return out;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < acc.length; i++) out[i] = acc[i] * scale;
  return out;
}

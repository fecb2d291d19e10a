// The two vector helpers of a partition's graph (partition-index.ts): the slab that keeps each
// label's full unit vector for the exact rerank, and the sketch the graph itself is built on.

/** Labels per block of a slab: 256 labels of 256 dimensions make a 256 KB block. */
const BLOCK_SHIFT = 8;
const BLOCK_MASK = (1 << BLOCK_SHIFT) - 1;

/**
 * Unit vectors by integer label, in fixed blocks, so that growing never copies what is there (a
 * doubling copy of 100,000 vectors stalled the loop for tens of milliseconds).
 */
export class UnitSlab {
  readonly dimensions: number;
  #blocks: Float32Array[] = [];

  constructor(dimensions: number) {
    this.dimensions = dimensions;
  }

  /** Stores `v` under `label`; labels are handed out in order, so at most one new block is needed. */
  set(label: number, v: Float32Array): void {
    const b = label >>> BLOCK_SHIFT;
    while (this.#blocks.length <= b) this.#blocks.push(new Float32Array((BLOCK_MASK + 1) * this.dimensions));
    this.#blocks[b].set(v, (label & BLOCK_MASK) * this.dimensions);
  }

  /** Dot product of the vector under `label` with `v`: their cosine, both being unit length. */
  dot(label: number, v: Float32Array): number {
    const block = this.#blocks[label >>> BLOCK_SHIFT];
    const d = this.dimensions;
    let sum = 0;
    for (let i = 0, j = (label & BLOCK_MASK) * d; i < d; i++, j++) sum += v[i] * block[j];
    return sum;
  }

  /** Whether the vector under `label` is `v`, bit for bit. */
  equals(label: number, v: Float32Array): boolean {
    const block = this.#blocks[label >>> BLOCK_SHIFT];
    const d = this.dimensions;
    const at = (label & BLOCK_MASK) * d;
    for (let i = 0; i < d; i++) if (block[at + i] !== v[i]) return false;
    return true;
  }

  /** A copy of the vector under `label`. */
  get(label: number): Float32Array {
    const at = (label & BLOCK_MASK) * this.dimensions;
    return this.#blocks[label >>> BLOCK_SHIFT].slice(at, at + this.dimensions);
  }

  clear(): void {
    this.#blocks = [];
  }
}

/**
 * A fixed signed projection of `from` dimensions onto `to` (a count sketch): each dimension is added,
 * with a sign, into one of `to`. Where it goes is a hash of the dimension's number (murmur3's
 * finaliser), so every index of a vector space sketches alike. Inner products are kept on average.
 */
export class Sketch {
  readonly from: number;
  readonly to: number;
  readonly #target: Uint16Array;
  readonly #sign: Float32Array;

  constructor(from: number, to: number) {
    this.from = from;
    this.to = to;
    this.#target = new Uint16Array(from);
    this.#sign = new Float32Array(from);
    for (let i = 0; i < from; i++) {
      let h = Math.imul(i + 1, 0x9e3779b1);
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      this.#target[i] = (h >>> 1) % to;
      this.#sign[i] = h & 1 ? -1 : 1;
    }
  }

  /**
   * Writes the sketch of `v` into `out` (length `to`) at unit length. A vector can cancel out in its
   * sketch entirely (never seen in practice); its sketch is then the zero vector.
   */
  project(v: Float32Array, out: number[]): void {
    out.fill(0);
    for (let i = 0; i < this.from; i++) out[this.#target[i]] += this.#sign[i] * v[i];
    let sum = 0;
    for (let i = 0; i < out.length; i++) sum += out[i] * out[i];
    const k = sum === 0 ? 0 : 1 / Math.sqrt(sum);
    for (let i = 0; i < out.length; i++) out[i] *= k;
  }
}

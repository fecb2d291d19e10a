// Remembers the results of an expensive pure computation for the most recently used keys, so a
// handful of hot keys stay computed while a stream of distinct keys cannot grow memory without end.

export class BoundedMemo<K, V> {
  /** Map iteration order is insertion order: the first key is the least recently used. */
  readonly #entries = new Map<K, V>();
  readonly #max: number;

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a memo holds at least one entry, not ${max}`);
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The remembered value, or `compute`'s (remembered unless it throws). */
  get(key: K, compute: (key: K) => V): V {
    if (this.#entries.has(key)) {
      const hit = this.#entries.get(key) as V;
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const value = compute(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as K);
    return value;
  }
}

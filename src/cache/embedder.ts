// The one thing the semantic tier needs from an embedding model. Kept this small so that the offline
// local embedder, an upstream embedding model (`<vendor>/<model>` or `@slug`, through the pipeline)
// and a later in-process ONNX model are interchangeable behind it.

export interface Embedder {
  /**
   * Names the vector space: vectors from two embedders are comparable only when their ids are
   * equal, so stored entries carry it and a settings change never mixes spaces in one index.
   */
  readonly id: string;
  readonly dimensions: number;
  /** One vector per text, in order, each of `dimensions` length. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/**
 * Cosine similarity in [-1, 1]; 0 when either vector is all zeros (an empty prompt is similar to
 * nothing). Accumulates in float64 so that 1,000-dimension sums do not drift.
 */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`cosine: dimensions differ (${a.length} vs ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  // Clamped: rounding can push the ratio of two equal vectors a hair above 1.
  return Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb)));
}

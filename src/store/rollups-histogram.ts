// The latency histogram of the rollups: fixed log-scale bins, 18 per doubling, so every bin's upper
// edge is 2^(1/18) = 1.0393 times its lower edge. A percentile is reported as the geometric midpoint
// of the bin that holds it, which is within sqrt(1.0393) - 1 = 1.94% of any value in that bin;
// rounding the answer to 0.001 ms keeps the stated bound, 2%, for every latency of 1 ms or more
// (latencies are whole milliseconds, and 0 has a bin of its own). Fixed bins make histograms of
// different hours, processes and databases add up bin by bin, which is what lets rollups be
// merged with plain `n = n + excluded.n` upserts.

export const BINS_PER_DOUBLING = 18;

/** Bin of a latency in milliseconds: 0 for under 1 ms, else 1 + floor(18 * log2(ms)). */
export function latencyBin(ms: number): number {
  if (!(ms >= 1)) return 0;
  return 1 + Math.floor(Math.log2(ms) * BINS_PER_DOUBLING);
}

/** The value a bin stands for: its geometric midpoint, rounded to 0.001 ms. */
export function binValue(bin: number): number {
  if (bin <= 0) return 0;
  return Math.round(2 ** ((bin - 0.5) / BINS_PER_DOUBLING) * 1000) / 1000;
}

/**
 * Nearest-rank percentiles (`p` in 0..100) of a histogram given as bin -> count: the value whose
 * rank is ceil(p / 100 * n) in sorted order lies in the first bin where the running count reaches
 * that rank. Null for an empty histogram.
 */
export function histogramPercentiles(hist: ReadonlyMap<number, number>, ps: readonly number[]): (number | null)[] {
  let total = 0;
  for (const n of hist.values()) total += n;
  if (total <= 0) return ps.map(() => null);
  const bins = [...hist.entries()].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  return ps.map((p) => {
    // p * total first: an integer for whole p, so the division is exact where it should be.
    const rank = Math.max(1, Math.ceil((p * total) / 100));
    let seen = 0;
    for (const [bin, n] of bins) {
      seen += n;
      if (seen >= rank) return binValue(bin);
    }
    return binValue(bins[bins.length - 1]?.[0] ?? 0);
  });
}

/**
 * A histogram as stored in a rollup row's `hist` column: `bin:count` pairs joined by commas. A bin
 * may appear more than once (PostgreSQL appends a batch's pairs and compacts only long texts,
 * rollups-write.ts); readers add them all up.
 */
export function encodeHist(hist: ReadonlyMap<number, number>): string {
  const parts: string[] = [];
  for (const bin of [...hist.keys()].sort((a, b) => a - b)) {
    const n = hist.get(bin) ?? 0;
    if (n !== 0) parts.push(`${bin}:${n}`);
  }
  return parts.join(',');
}

/** Adds a stored histogram into `into`, times `sign`. Hand-parsed: reports read many of them. */
export function addHist(into: Map<number, number>, text: string, sign = 1): void {
  let bin = -1;
  let num = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 44;
    if (c >= 48 && c <= 57) {
      num = (num < 0 ? 0 : num * 10) + (c - 48);
      continue;
    }
    if (num < 0) continue;
    if (bin < 0) bin = num;
    else {
      into.set(bin, (into.get(bin) ?? 0) + sign * num);
      bin = -1;
    }
    num = -1;
  }
}

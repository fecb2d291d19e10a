// The knobs of a partition's nearest-neighbour index (partition-index.ts) and the values chosen for
// them, with the measurements they were chosen by.

export interface PartitionIndexOptions {
  /**
   * Partitions smaller than this are scanned exactly; reaching it starts the graph build. A graph
   * partition that shrinks below half of it goes back to exact (the gap keeps an entry added and
   * removed at the boundary from rebuilding every time).
   */
  exactBelow?: number;
  /** HNSW links per node (2M on the bottom layer). */
  m?: number;
  efConstruction?: number;
  /**
   * Candidates kept during a search, at most: recall against latency. Smaller graphs search with
   * fewer, down to `efFloor` (see searchEf).
   */
  ef?: number;
  /** The fewest candidates a search keeps, however small the graph. */
  efFloor?: number;
  /**
   * Graph inserts each add() performs while a build is in progress. Each add also queues its own
   * entry, so with 1 only step() (or removals) can finish a build; with 0 add() never builds (a
   * caller that pumps step() in idle time).
   */
  buildInsertsPerAdd?: number;
  /** Seed of the graph's level draws, so that a given sequence of calls builds the same graph. */
  seed?: number;
  /**
   * Vectors with more dimensions than this are searched through a sketch of this many (see
   * partition-index.ts); smaller ones as they are.
   */
  searchDimensions?: number;
  /** Entries a sketch search returns, to be ranked by their exact similarity. */
  candidates?: number;
}

// Chosen with bench/cache-index.ts at 100,000 LocalEmbedder vectors of 256 dimensions (bench/README.md).
// ef 64 with efConstruction 64: search p99 0.40 ms, recall@1 against the flat scan 0.978 (edited
// prompts 0.974), and every query with an entry at or above the 0.95 threshold answered above it.
// efConstruction 100 gained half a point of recall for 1.7x the insert cost (0.30 vs 0.18 ms per
// entry), which every cache write pays; 48 lost two points on edited prompts. ef 96 gave 0.990 for
// a third more time per search, which every miss pays (and a neighbour the search misses costs a
// hit, never a wrong answer). M 12 lost recall; M 24-32 cost more per search for no gain.
// The 64-dimension sketch with 8 candidates (session 9, same bench, ef 64): search p50 0.152 -> 0.079
// ms and p99 0.403 -> 0.161 ms, build 22.5 -> 9.1 s; of the queries with an entry at or above 0.95,
// 503 of 504 answered above it (the full graph: 504), edited prompts' recall@1 0.974 -> 0.949.
// 96 dimensions found all 504 for no faster search; 16 candidates gave 0.959 on edited prompts.
export const PARTITION_INDEX_DEFAULTS: Readonly<Required<PartitionIndexOptions>> = {
  exactBelow: 128,
  m: 16,
  efConstruction: 64,
  ef: 64,
  efFloor: 16,
  buildInsertsPerAdd: 4,
  seed: 100,
  searchDimensions: 64,
  candidates: 8,
};

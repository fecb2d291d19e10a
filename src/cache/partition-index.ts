// Nearest-neighbour index of one partition (see flat-index.ts) that stays fast at 100,000 entries.
// Small partitions are scanned exactly (FlatIndex): at 128 entries of 256 dimensions a scan costs
// about 40 us here and has perfect recall, about what one graph search costs (the call into the
// addon alone is some 30 us). Larger ones use an HNSW graph (hnswlib, inner-product space over unit
// vectors, so similarity = 1 - distance).
//
// Building the graph for the entries already there is the expensive part (tens of microseconds to a
// millisecond per insert), so it is never done in one go: crossing the threshold starts a build, and
// every add() then inserts a few entries (`buildInsertsPerAdd`), and step(budgetMs) inserts for up to
// a time budget, for a caller that wants to finish it in idle time (setImmediate). Until the last
// entry is in, the flat index keeps holding every entry and answers every query, so a build can
// never make an entry invisible: entries added, replaced or removed meanwhile go to the flat index
// and are (re)queued for, or deleted from, the graph.
//
// Labels (the graph's integer keys) are slots: a removed entry's label is marked deleted and handed
// to the next new entry, whose addPoint then overwrites that node in place (hnswlib's update path,
// which relinks its neighbours). That is what allowReplaceDeleted would do, except that with it
// hnswlib picks which deleted node to reuse and silently drops that node's label, so labels could
// never be reused and would run past the addon's 32 bits on a long-lived partition. With our own
// slots the graph never holds more nodes than the peak number of live entries, and capacity doubles
// with resizeIndex.
//
// A query identical to a stored vector (with the local embedder, every case, punctuation or spacing
// variant of a stored prompt: most cache hits) is answered from a hash of the unit vector, checked
// against the stored one, before any graph search. Graph search is weakest exactly there: prompts of
// one template that differ by a number are all about equally far apart, so greedy search has no
// gradient to follow, and measured recall on such duplicates was 97-99% at a usable ef.
//
// The graph holds a short sketch of each vector (searchDimensions, 64: every dimension added with a
// fixed pseudo-random sign into one of 64), not the vector itself, and a search takes the sketch's
// `candidates` nearest entries and ranks them by their exact similarity over all dimensions, read
// from a slab of the unit vectors kept here. A miss pays for every search, and at 256 dimensions
// most of a search is reading vectors: measured with bench/cache-index.ts, the sketch graph searched
// 2,000 entries in about half the time (a third less after an idle gap, with cold caches) and
// 100,000 in half, found more of the neighbours above the threshold than the full graph at the same
// ef (the rerank sees 8 candidates where the full graph returned 1), and inserts cost a third. The
// similarity reported is always the exact one, so the sketch can cost a hit, never a false one.

import type { HierarchicalNSW as Graph } from 'hnswlib-node';
import hnswlib from 'hnswlib-node';
import { FlatIndex, inverseNorm, type Neighbour } from './flat-index.ts';
import { PARTITION_INDEX_DEFAULTS, type PartitionIndexOptions } from './index-tuning.ts';
import { Sketch, UnitSlab } from './unit-vectors.ts';

export type { Neighbour } from './flat-index.ts';

export { PARTITION_INDEX_DEFAULTS, type PartitionIndexOptions } from './index-tuning.ts';

export type PartitionPhase = 'exact' | 'building' | 'graph';

export class PartitionIndex {
  readonly dimensions: number;
  private readonly opts: Required<PartitionIndexOptions>;
  /** Every entry while exact or building; undefined once the graph holds them all. */
  private flat: FlatIndex | undefined;
  /** Unit-length copies of the flat entries: what a build inserts into the graph. */
  private readonly vectors = new Map<string, Float32Array>();
  /** Entries the graph lacks or holds an outdated vector of, in insertion order. */
  private readonly pending = new Set<string>();
  private pendingCursor: Iterator<string> | undefined;
  private graph: Graph | undefined;
  /** The ef last given to the graph's setEf. */
  private graphEf: number | undefined;
  private readonly labels = new Map<string, number>();
  private idsByLabel: (string | undefined)[] = [];
  private freeLabels: number[] = [];
  /** Reused: the addon only takes plain arrays, so each call copies the graph's vector into this one. */
  private readonly scratch: number[];
  /** Dimensions of the vectors the graph holds: the sketch's, or all of them when there are few. */
  readonly graphDimensions: number;
  /** What the graph holds of each vector; undefined when it holds the vectors themselves. */
  private readonly sketch: Sketch | undefined;
  /** The unit vector of each graph label: the rerank reads them. */
  private readonly units: UnitSlab;
  /** The unit vector being added or looked up, as float32, and its bits for hashing. */
  private readonly unit: Float32Array;
  private readonly unitBits: Uint32Array;
  /** Graph labels by hash of their unit vector (several when vectors collide or repeat). */
  private readonly byHash = new Map<number, number[]>();
  private hashByLabel: number[] = [];

  constructor(dimensions: number, options: PartitionIndexOptions = {}) {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new RangeError(`PartitionIndex: dimensions must be a positive integer, got ${dimensions}`);
    }
    const opts = { ...PARTITION_INDEX_DEFAULTS };
    for (const key of Object.keys(opts) as (keyof PartitionIndexOptions)[]) {
      const v = options[key] ?? opts[key];
      const min = key === 'seed' || key === 'buildInsertsPerAdd' ? 0 : 1;
      if (!Number.isInteger(v) || v < min)
        throw new RangeError(`PartitionIndex: ${key} must be an integer >= ${min}, got ${v}`);
      opts[key] = v;
    }
    this.dimensions = dimensions;
    this.opts = opts;
    // Room for one entry: most partitions (one per system prompt, tool set and sampling) stay small,
    // and 16 slots of 256 floats each would be 16 KB per partition before the first answer.
    this.flat = new FlatIndex(dimensions, 1);
    this.graphDimensions = Math.min(dimensions, opts.searchDimensions);
    this.sketch = dimensions > this.graphDimensions ? new Sketch(dimensions, this.graphDimensions) : undefined;
    this.units = new UnitSlab(dimensions);
    this.scratch = new Array<number>(this.graphDimensions).fill(0);
    this.unit = new Float32Array(dimensions);
    this.unitBits = new Uint32Array(this.unit.buffer);
  }

  get size(): number {
    return this.flat ? this.flat.size : this.labels.size;
  }

  get phase(): PartitionPhase {
    if (!this.graph) return 'exact';
    return this.flat ? 'building' : 'graph';
  }

  /** Nodes the graph has room for (0 while exact): at most twice the peak number of entries. */
  get capacity(): number {
    return this.graph ? this.graph.getMaxElements() : 0;
  }

  /** The most candidates a search keeps (see searchEf); settable, to retune a live partition. */
  get ef(): number {
    return this.opts.ef;
  }

  set ef(value: number) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`PartitionIndex: ef must be an integer >= 1`);
    this.opts.ef = value;
  }

  /**
   * The breadth a search of the graph at its current size uses: one candidate per 256 entries,
   * between efFloor and ef. The breadth a given recall needs grows with the graph, and every miss
   * pays for it. Measured with bench/cache-index.ts: up to a few thousand entries, ef 16 found the
   * same nearest entry of edited prompts as ef 64 did, at two thirds of the search time; at 30,000
   * entries it lost 5 points, so a 10,000-entry partition (the default max_entries) searches with
   * 40 and one of 16,384 or more with the full ef.
   */
  searchEf(): number {
    const { ef, efFloor } = this.opts;
    return Math.min(ef, Math.max(efFloor, Math.ceil(this.labels.size / 256)));
  }

  has(id: string): boolean {
    return this.flat ? this.flat.has(id) : this.labels.has(id);
  }

  /** Adds or replaces the vector of `id`. A zero vector is stored as such and is similar to nothing. */
  add(id: string, vector: Float32Array): void {
    this.checkDimensions(vector);
    if (!this.flat) {
      this.toScratch(vector);
      this.insert(id);
      return;
    }
    this.flat.add(id, vector);
    this.vectors.set(id, unit(vector));
    if (this.graph) {
      this.pending.add(id);
      this.advance(this.opts.buildInsertsPerAdd);
    } else if (this.flat.size >= this.opts.exactBelow) {
      this.startBuild();
      this.advance(this.opts.buildInsertsPerAdd);
    }
  }

  /** Whether `id` was there. */
  remove(id: string): boolean {
    if (this.flat) {
      if (!this.flat.remove(id)) return false;
      this.vectors.delete(id);
      this.pending.delete(id);
      this.unlink(id);
      if (this.graph && this.flat.size < this.opts.exactBelow / 2) this.dropGraph();
      else if (this.graph && this.pending.size === 0) this.finishBuild();
      return true;
    }
    if (!this.unlink(id)) return false;
    if (this.labels.size < this.opts.exactBelow / 2) this.backToExact();
    return true;
  }

  /**
   * The most similar entry (approximately, once the graph answers), or undefined when the index is
   * empty or the query is the zero vector. Ties go to the smallest id only while the scan is exact.
   */
  nearest(vector: Float32Array): Neighbour | undefined {
    this.checkDimensions(vector);
    if (this.flat) return this.flat.nearest(vector);
    if (!this.graph || this.labels.size === 0 || !this.toScratch(vector)) return undefined;
    const identical = this.identical();
    if (identical !== undefined) return { id: identical, similarity: 1 };
    const ef = this.searchEf();
    if (ef !== this.graphEf) {
      this.graph.setEf(ef);
      this.graphEf = ef;
    }
    const k = Math.min(this.sketch ? this.opts.candidates : 1, this.labels.size);
    let best: Neighbour | undefined;
    for (const label of this.graph.searchKnn(this.scratch, k).neighbors) {
      const id = this.idsByLabel[label];
      if (id === undefined) continue;
      // Clamped: float32 rounding can put the similarity of identical vectors a hair above 1.
      const similarity = Math.max(-1, Math.min(1, this.units.dot(label, this.unit)));
      if (best === undefined || similarity > best.similarity || (similarity === best.similarity && id < best.id))
        best = { id, similarity };
    }
    return best;
  }

  /**
   * Continues a graph build for about `budgetMs` (at least one insert). Returns whether a build is
   * still in progress, so `const pump = () => index.step(4) && setImmediate(pump)` finishes it in
   * idle time. Without it the build still completes, through add().
   */
  step(budgetMs: number): boolean {
    const deadline = performance.now() + budgetMs;
    do this.advance(1);
    while (this.phase === 'building' && performance.now() < deadline);
    return this.phase === 'building';
  }

  private startBuild(): void {
    const graph = new hnswlib.HierarchicalNSW('ip', this.graphDimensions);
    const maxElements = Math.max(16, 2 * this.opts.exactBelow);
    graph.initIndex({
      maxElements,
      m: this.opts.m,
      efConstruction: this.opts.efConstruction,
      randomSeed: this.opts.seed,
    });
    this.graph = graph;
    this.graphEf = undefined;
    for (const id of this.vectors.keys()) this.pending.add(id);
    this.pendingCursor = this.pending.values();
  }

  /** Moves up to `count` pending entries into the graph; the last one completes the build. */
  private advance(count: number): void {
    if (!this.pendingCursor) return;
    for (let i = 0; i < count && this.pending.size > 0; i++) {
      // A Set iterator visits entries added after it was made, and skips those deleted before it
      // reached them: queued, requeued and withdrawn entries are all seen correctly.
      const next = this.pendingCursor.next();
      if (next.done) {
        this.pendingCursor = this.pending.values();
        continue;
      }
      const id = next.value;
      this.pending.delete(id);
      const v = this.vectors.get(id);
      if (!v) continue;
      this.load(v, 1);
      this.insert(id);
    }
    if (this.pending.size === 0) this.finishBuild();
  }

  private finishBuild(): void {
    this.flat = undefined;
    this.vectors.clear();
    this.pendingCursor = undefined;
  }

  /** A build that lost its reason to exist: the partition shrank back well below the threshold. */
  private dropGraph(): void {
    this.graph = undefined;
    this.units.clear();
    this.labels.clear();
    this.idsByLabel = [];
    this.freeLabels = [];
    this.byHash.clear();
    this.hashByLabel = [];
    this.pending.clear();
    this.pendingCursor = undefined;
  }

  /** Graph to flat scan, with the unit vectors of the slab (a few hundred of them). */
  private backToExact(): void {
    if (!this.graph) return;
    const flat = new FlatIndex(this.dimensions, this.opts.exactBelow);
    for (const [id, label] of this.labels) {
      const v = this.units.get(label);
      flat.add(id, v);
      this.vectors.set(id, v);
    }
    this.flat = flat;
    this.dropGraph();
  }

  /** Puts the unit vector in the scratch array into the graph under `id`'s label, or a new one. */
  private insert(id: string): void {
    const graph = this.graph;
    if (!graph) throw new Error('PartitionIndex: no graph to insert into');
    let label = this.labels.get(id);
    if (label !== undefined) this.forgetHash(label);
    else {
      label = this.freeLabels.pop();
      if (label === undefined) {
        label = this.idsByLabel.length;
        this.idsByLabel.push(undefined);
        if (label >= graph.getMaxElements()) graph.resizeIndex(2 * graph.getMaxElements());
      }
      this.labels.set(id, label);
      this.idsByLabel[label] = id;
    }
    // An existing label, live or deleted, is updated in place (see the header).
    graph.addPoint(this.scratch, label);
    this.units.set(label, this.unit);
    const hash = this.hashUnit();
    this.hashByLabel[label] = hash;
    const same = this.byHash.get(hash);
    if (same) same.push(label);
    else this.byHash.set(hash, [label]);
  }

  /** The smallest id whose stored vector is bit for bit the scratch vector. */
  private identical(): string | undefined {
    const candidates = this.byHash.get(this.hashUnit());
    if (!candidates) return undefined;
    let best: string | undefined;
    for (const label of candidates) {
      const id = this.idsByLabel[label];
      if (id === undefined || (best !== undefined && best < id)) continue;
      if (this.units.equals(label, this.unit)) best = id;
    }
    return best;
  }

  private forgetHash(label: number): void {
    const hash = this.hashByLabel[label];
    const same = this.byHash.get(hash);
    if (!same) return;
    const at = same.indexOf(label);
    if (at >= 0) same.splice(at, 1);
    if (same.length === 0) this.byHash.delete(hash);
  }

  /** FNV-1a over the float32 bits, finalised; 30 bits so that keys stay small integers. */
  private hashUnit(): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < this.unitBits.length; i++) h = Math.imul(h ^ this.unitBits[i], 0x01000193);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    return h & 0x3fffffff;
  }

  /** Takes `id` out of the graph, if it is there. */
  private unlink(id: string): boolean {
    const label = this.labels.get(id);
    if (label === undefined || !this.graph) return false;
    this.graph.markDelete(label);
    this.forgetHash(label);
    this.labels.delete(id);
    this.idsByLabel[label] = undefined;
    this.freeLabels.push(label);
    return true;
  }

  /** Writes the unit vector of `v` into the scratch array; false for the zero vector. */
  private toScratch(v: Float32Array): boolean {
    const scale = inverseNorm(v);
    this.load(v, scale);
    return scale !== 0;
  }

  /**
   * `unit` = v * scale, rounded to float32 (so the hash and the checks see what the slab stores), and
   * `scratch` = what the graph gets for it: the unit vector, or its sketch at unit length.
   */
  private load(v: Float32Array, scale: number): void {
    const unitVector = this.unit;
    for (let i = 0; i < v.length; i++) unitVector[i] = v[i] * scale;
    if (this.sketch !== undefined) this.sketch.project(unitVector, this.scratch);
    else for (let i = 0; i < v.length; i++) this.scratch[i] = unitVector[i];
  }

  private checkDimensions(vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new RangeError(`PartitionIndex: expected ${this.dimensions} dimensions, got ${vector.length}`);
    }
  }
}

function unit(v: Float32Array): Float32Array {
  const scale = inverseNorm(v);
  return v.map((x) => x * scale);
}

// The cache entries of this instance, in memory: the proxy path reads them and nothing else (no
// storage I/O while a call waits). An exact map keyed by (tenant, exact key), one nearest-neighbour
// index per semantic partition, and per project a Map in least-recently-used order (a JS Map keeps
// insertion order, so a hit re-inserts its entry at the end and eviction takes from the front).
// The store (store/cache-entries.ts) is the durable copy these are rebuilt from.
import type { ChatResponse } from '../ir/types.ts';
import { cosine } from './embedder.ts';
import { PartitionIndex } from './partition-index.ts';

/** Index work (graph builds, deferred inserts) runs in turns of the event loop of at most this long. */
const WORK_SLICE_MS = 5;
/**
 * New answers wait this long before their vectors are indexed, so that the inserts (0.1-0.3 ms each
 * once a partition has a graph) run in batches between calls rather than in front of the next one.
 */
const INDEX_DELAY_MS = 10;

export interface MemEntry {
  /** tenant + "\n" + exact key: unique, like the store's (tenant, exact_key). */
  key: string;
  projectId: string;
  tenant: string;
  exactKey: string;
  partitionKey: string;
  /** The model as requested (raw name or `@slug`). */
  model: string;
  /** Which vector space `vector` is in; null with the vector when only the exact tier serves it. */
  embedder: string | null;
  vector: Float32Array | null;
  answer: ChatResponse;
  /** The vendor that answered (as the caller named it), for the hit's headers. */
  vendor: string | null;
  /** max_tokens of the request that produced the answer (fitsMaxTokens). */
  maxTokens: number | undefined;
  costUsd: number;
  createdAt: number;
  expiresAt: number;
  /** The store row's id once written (touches and deletes go by it). */
  storeId: string | undefined;
  /**
   * While the entry's store write is pending: settles when it is done (an eviction or purge waits
   * for it, or the row would outlive them). Undefined once written, and for entries loaded from the store.
   */
  written: Promise<void> | undefined;
}

export const entryKey = (tenant: string, exactKey: string): string => `${tenant}\n${exactKey}`;

/** The index a vector goes to: one per partition and vector space (two embedders never mix). */
const indexKey = (partitionKey: string, embedder: string): string => `${partitionKey}\n${embedder}`;

export class CacheMemory {
  readonly #byKey = new Map<string, MemEntry>();
  readonly #byProject = new Map<string, Map<string, MemEntry>>();
  readonly #indexes = new Map<string, PartitionIndex>();
  /** Partitions whose graph is being built; the flat scan answers for them meanwhile. */
  readonly #building = new Set<PartitionIndex>();
  /** Entries whose vectors are not indexed yet (the exact tier already serves them). */
  #unindexed: MemEntry[] = [];
  #pump: NodeJS.Timeout | undefined;
  #gapQueued = false;

  get size(): number {
    return this.#byKey.size;
  }

  count(projectId: string): number {
    return this.#byProject.get(projectId)?.size ?? 0;
  }

  exact(key: string): MemEntry | undefined {
    return this.#byKey.get(key);
  }

  /**
   * The nearest entry of the partition in that vector space, with its similarity: the index's answer,
   * or one of the entries still waiting to be indexed (a few, at most INDEX_DELAY_MS old), if closer.
   */
  nearest(
    partitionKey: string,
    embedder: string,
    vector: Float32Array,
  ): { entry: MemEntry; similarity: number } | undefined {
    let best: { entry: MemEntry; similarity: number } | undefined;
    const index = this.#indexes.get(indexKey(partitionKey, embedder));
    if (index !== undefined && index.dimensions === vector.length) {
      const n = index.nearest(vector);
      const entry = n === undefined ? undefined : this.#byKey.get(n.id);
      if (n !== undefined && entry !== undefined) best = { entry, similarity: n.similarity };
    }
    for (const e of this.#unindexed) {
      if (e.partitionKey !== partitionKey || e.embedder !== embedder || e.vector?.length !== vector.length) continue;
      if (!this.holds(e)) continue;
      const similarity = cosine(e.vector, vector);
      if (best === undefined || similarity > best.similarity) best = { entry: e, similarity };
    }
    return best;
  }

  /**
   * Adds or replaces the entry with the same key; returns the entries evicted to keep the project at
   * `maxEntries` (least recently used first), for the caller to delete from the store. With
   * `deferIndex` the vector reaches the semantic tier a few milliseconds later, in a batch.
   */
  add(entry: MemEntry, maxEntries: number, deferIndex = false): MemEntry[] {
    const old = this.#byKey.get(entry.key);
    if (old !== undefined) {
      this.remove(old);
      if (entry.storeId === undefined) entry.storeId = old.storeId;
    }
    this.#byKey.set(entry.key, entry);
    let lru = this.#byProject.get(entry.projectId);
    if (lru === undefined) {
      lru = new Map();
      this.#byProject.set(entry.projectId, lru);
    }
    lru.set(entry.key, entry);
    if (entry.vector !== null && entry.embedder !== null) {
      if (deferIndex) {
        this.#unindexed.push(entry);
        this.#schedule(INDEX_DELAY_MS);
      } else this.#index(entry);
    }
    const evicted: MemEntry[] = [];
    for (const oldest of lru.values()) {
      if (lru.size <= maxEntries) break;
      this.remove(oldest);
      evicted.push(oldest);
    }
    return evicted;
  }

  #index(entry: MemEntry): void {
    const vector = entry.vector;
    if (vector === null || entry.embedder === null) return;
    const k = indexKey(entry.partitionKey, entry.embedder);
    let index = this.#indexes.get(k);
    if (index === undefined || index.dimensions !== vector.length) {
      // No build work inside add(): a restart loading 100,000 entries would otherwise stall the
      // event loop for its whole build; the pump does it in slices.
      index = new PartitionIndex(vector.length, { buildInsertsPerAdd: 0 });
      this.#indexes.set(k, index);
    }
    index.add(entry.key, vector);
    if (index.phase === 'building') {
      this.#building.add(index);
      this.#schedule(0);
    }
  }

  #schedule(delayMs: number): void {
    if (this.#pump !== undefined) return;
    this.#pump = setTimeout(() => this.#work(), delayMs);
    this.#pump.unref();
  }

  /** One slice of index work: deferred inserts first (they make answers findable), then builds. */
  #work(): void {
    this.#pump = undefined;
    const deadline = performance.now() + WORK_SLICE_MS;
    let done = 0;
    while (done < this.#unindexed.length && performance.now() < deadline) {
      const e = this.#unindexed[done++];
      // Replaced, evicted or purged meanwhile: nothing to index.
      if (this.holds(e)) this.#index(e);
    }
    this.#unindexed = this.#unindexed.slice(done);
    for (const index of this.#building) {
      if (performance.now() >= deadline) break;
      if (!index.step(Math.max(0.5, deadline - performance.now()))) this.#building.delete(index);
    }
    if (this.#unindexed.length > 0 || this.#building.size > 0) this.#schedule(0);
  }

  /**
   * A call has just gone upstream, so the loop is about to wait for its answer with nothing to do:
   * one deferred insert runs in that wait instead of in front of a later call. Two turns of the
   * loop later, so that the upstream request is on the wire first (the transport may itself defer
   * its write by one turn). One insert per miss keeps pace with the one entry each miss adds; the
   * timer pump still catches up after bursts.
   */
  useUpstreamWait(): void {
    if (this.#gapQueued || this.#unindexed.length === 0) return;
    this.#gapQueued = true;
    setImmediate(() =>
      setImmediate(() => {
        this.#gapQueued = false;
        while (this.#unindexed.length > 0) {
          const e = this.#unindexed.shift() as MemEntry;
          if (!this.holds(e)) continue;
          this.#index(e);
          return;
        }
      }),
    );
  }

  /** Whether index work is still queued (tests and benches wait for it). */
  get busy(): boolean {
    return this.#building.size > 0 || this.#unindexed.length > 0;
  }

  /** A hit: the entry becomes the project's most recently used. */
  touch(entry: MemEntry): void {
    const lru = this.#byProject.get(entry.projectId);
    if (lru === undefined || !lru.delete(entry.key)) return;
    lru.set(entry.key, entry);
  }

  remove(entry: MemEntry): void {
    if (!this.holds(entry)) return;
    this.#byKey.delete(entry.key);
    const lru = this.#byProject.get(entry.projectId);
    lru?.delete(entry.key);
    if (lru?.size === 0) this.#byProject.delete(entry.projectId);
    if (entry.vector !== null && entry.embedder !== null) {
      const k = indexKey(entry.partitionKey, entry.embedder);
      const index = this.#indexes.get(k);
      index?.remove(entry.key);
      if (index?.size === 0) this.#indexes.delete(k);
    }
  }

  /** Drops every entry of the project; returns them. */
  purgeProject(projectId: string): MemEntry[] {
    const lru = this.#byProject.get(projectId);
    if (lru === undefined) return [];
    const entries = [...lru.values()];
    for (const e of entries) this.remove(e);
    return entries;
  }

  /** Every entry held, in no particular order. */
  held(): IterableIterator<MemEntry> {
    return this.#byKey.values();
  }

  /** Whether `e` is still the entry memory holds for its key (not replaced, evicted or purged). */
  holds(e: MemEntry): boolean {
    return this.#byKey.get(e.key) === e;
  }

  /** Drops the entries expired at `now`; returns them. */
  expire(now: number): MemEntry[] {
    const gone: MemEntry[] = [];
    for (const e of this.#byKey.values()) if (e.expiresAt <= now) gone.push(e);
    for (const e of gone) this.remove(e);
    return gone;
  }
}

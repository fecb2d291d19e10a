// The semantic cache feature (SPEC "Semantic cache behavior", DESIGN §7): a beforeAttempt hook that
// answers from memory (exact tier, then the nearest prompt embedding of the same partition), and
// end-of-call work that notes the call's cache columns on its record and, on a miss it would store,
// keeps the complete answer. Entries are written to the store behind the answer, never awaited by a
// call, and loaded back at start (and again after the change bus had a gap).
import type { Logger } from 'pino';
import type { ChatResponse } from '../ir/types.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import type { BeforeAttemptHook, HookAnswer, PipelineFeature } from '../pipeline/hooks.ts';
import { addReplyHeader, atCallEnd, callSlot, setSlot, slotOf } from '../pipeline/lifecycle.ts';
import { endUserOf, noteFeature } from '../pipeline/record.ts';
import type { CallRecord, ProxyCall } from '../pipeline/types.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { CacheEntry, CacheEntryStore } from '../store/cache-entries.ts';
import { hitOutcome, sameAnswer } from './answer.ts';
import { cacheEligible, fitsMaxTokens, semanticEligible } from './eligibility.ts';
import { type CacheEmbedders, cacheEmbedders, type Embedding, embedPrompt } from './embedders.ts';
import { cacheKeys, promptText } from './key.ts';
import { CacheMemory, entryKey, type MemEntry } from './memory.ts';
import { CacheReplication } from './replication.ts';
import { CACHE_SETTINGS_KEY, type CacheSettings, cacheTenant, parseCacheSettings } from './settings.ts';
import { compareWithStore, entryOf, readLive, type StoredAnswer } from './store-reads.ts';
import { StoreWrites } from './store-writes.ts';

export interface CacheDeps {
  store: CacheEntryStore;
  /** The project's settings object as the live mirror holds it (replaced, never mutated, on change). */
  projectSettings(projectId: string): Record<string, unknown> | undefined;
  logger: Logger;
  /** Defaults to the local embedder plus sub-calls through `pipeline`. */
  embedders?: CacheEmbedders;
  /**
   * The pipeline remote embedders run their sub-calls through; its hooks are the gateway's, this
   * cache's among them, registered after construction like every feature's.
   */
  pipeline?: PipelineDeps;
  now?: () => number;
  /**
   * Where new entries and purges are announced to the other instances (topic `cache_entry`), and
   * where theirs are heard: each instance then reads the entry from the store into its memory.
   */
  changes?: ChangeBus;
}

/** Answers that ended on their own; `max_tokens` cuts, filtered and failed answers are never kept. */
const STORABLE = new Set(['end_turn', 'stop_sequence', 'tool_use']);
/** Shadow mode also records neighbours below the threshold (down to this), so lower thresholds can be judged. */
const SHADOW_FLOOR = 0.8;
const SWEEP_MS = 60_000;

/** What the lookup found for one call, read back when the call ends. */
interface CacheNote {
  hit: boolean;
  /** Hits: similarity of the entry served (1 on the exact tier). Shadow mode: of the would-be hit. */
  similarity: number | null;
  /** Hits: what the upstream call that produced the entry cost. */
  savedCostUsd: number;
  /** Shadow mode: the cached answer the fresh one is compared with. */
  shadowOf: ChatResponse | undefined;
  /** Set when the call's answer is to be kept. */
  write: Lookup | undefined;
}

const NOTE = callSlot<CacheNote>('cache');

export class SemanticCache {
  readonly #deps: CacheDeps;
  readonly #memory = new CacheMemory();
  readonly #settings = new WeakMap<object, CacheSettings | null>();
  readonly #now: () => number;
  /** Store ids of entries hit since the last sweep: the store learns of hits in batches. */
  readonly #touched = new Set<string>();
  readonly #embedders: CacheEmbedders;
  #timer: NodeJS.Timeout | undefined;
  readonly #writes: StoreWrites;
  readonly #replication: CacheReplication;
  /** The reconcile under way or queued (close waits for it), and whether one waits behind it. */
  #reconciling: Promise<void> = Promise.resolve();
  #reconcileQueued = false;

  constructor(deps: CacheDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#replication = new CacheReplication(deps.changes);
    // Entries replaced, evicted or purged while their batch was written are not announced: the
    // other instances would load a row that is about to be deleted.
    this.#writes = new StoreWrites(deps.store, deps.logger, (e, storeId) => {
      if (this.#memory.holds(e)) this.#replication.entryWritten(e.projectId, storeId);
    });
    this.#embedders =
      deps.embedders ??
      cacheEmbedders(
        () => {
          if (deps.pipeline === undefined) throw new Error('semantic cache: no pipeline to embed through');
          return deps.pipeline;
        },
        (err) => deps.logger.warn({ err }, 'semantic cache: an embedding sub-call failed'),
      );
  }

  /** Loads the live entries from the store (a restart keeps the cache), then sweeps periodically. */
  async start(): Promise<void> {
    for (const row of await readLive(this.#deps.store, this.#now())) this.#load(row);
    this.#timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.#timer.unref();
    // Another instance wrote an entry (or purged a project): this one learns it from the store.
    this.#replication.start({
      // An entry of the project still waiting for its batch would land in the store after the
      // purge: its row is deleted once written (and, no longer held, never announced).
      purged: (projectId) => {
        for (const e of this.#memory.purgeProject(projectId)) if (e.written !== undefined) this.#forget(e);
      },
      written: async (storeId, purgedSince) => {
        const row = await this.#deps.store.get(storeId);
        if (row !== undefined && !purgedSince(row.projectId) && row.expiresAt > this.#now()) this.#load(row);
      },
      resumed: () => {
        // A resume during a read needs one read after it (that one may have begun in the gap), not one each.
        if (this.#reconcileQueued) return;
        this.#reconcileQueued = true;
        this.#reconciling = this.#reconciling
          .then(() => {
            this.#reconcileQueued = false;
            return this.#reconcile();
          })
          .catch((err: unknown) =>
            this.#deps.logger.warn({ err }, 'semantic cache: reconciling with the store failed'),
          );
      },
    });
  }

  /**
   * After a gap in the change bus, whose announcements and purges never arrive: memory is made alike
   * with the store again, rows read before a purge staying out as in `written`.
   */
  async #reconcile(): Promise<void> {
    const before = [...this.#memory.held()];
    const purgedSince = this.#replication.purgedSince();
    const rows = await readLive(this.#deps.store, this.#now());
    const { gone, missing } = compareWithStore(this.#memory, before, rows);
    for (const e of gone) this.#memory.remove(e);
    for (const row of missing) if (!purgedSince(row.projectId)) this.#load(row);
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#replication.stop();
    await this.#reconciling;
    await this.#writes.settle();
    await this.#flushTouches();
  }

  /** Project settings parsed once per settings object; null when the cache is off or unusable. */
  settingsOf(projectId: string): CacheSettings | null {
    const raw = this.#deps.projectSettings(projectId);
    if (raw === undefined) return null;
    let s = this.#settings.get(raw);
    if (s === undefined) {
      const parsed = parseCacheSettings(raw[CACHE_SETTINGS_KEY]);
      s = parsed.ok && parsed.value.enabled ? parsed.value : null;
      this.#settings.set(raw, s);
    }
    return s;
  }

  readonly lookup: BeforeAttemptHook = (call) => {
    const chat = call.chat;
    const projectId = call.principal.projectId;
    // Every chat answer says whether it came from the cache, enabled or not.
    addReplyHeader(call, 'x-svc-cache', 'MISS');
    if (chat === undefined || projectId === null) return undefined;
    const settings = this.settingsOf(projectId);
    if (settings === null) return undefined;
    if (call.svc?.cacheSkip === true || call.hdr.noStore) return skipped(call, 'bypassed');
    // A replay exists to run the request again (often on another model): never answered from the cache.
    if (call.replayOf !== undefined) return skipped(call, 'replay');
    const tenant = cacheTenant(settings, projectId, endUserOf(call));
    if (tenant === undefined) return skipped(call, 'no_end_user');
    const extras = call.codec.wireExtras(chat.body);
    const eligible = cacheEligible(chat.ir, settings, extras);
    if (!eligible.eligible) return skipped(call, eligible.reason);
    const now = this.#now();
    const model = call.modelRequested;
    const { exact, partition } = cacheKeys(tenant, model, chat.ir, extras);
    const found = this.#memory.exact(entryKey(tenant, exact));
    const base: Lookup = { call, settings, projectId, tenant, exact, partition, now, embedding: undefined };
    if (found !== undefined && usable(base, found)) return this.#found(base, found, 1, 'exact');
    if (settings.mode === 'exact' || !semanticEligible(chat.ir, settings, extras).eligible) return this.#miss(base);
    const embedding = embedPrompt(this.#embedders, settings.embedder, call, promptText(chat.ir));
    if (embedding instanceof Promise) return embedding.then((e) => this.#semantic(base, e));
    return this.#semantic(base, embedding);
  };

  #semantic(base: Lookup, embedding: Embedding | undefined): HookAnswer | undefined {
    if (embedding === undefined) return this.#miss(base);
    base.embedding = embedding;
    const near = this.#memory.nearest(base.partition, embedding.embedder, embedding.vector);
    const s = base.settings;
    const threshold = s.mode === 'shadow' ? Math.min(s.similarity_threshold, SHADOW_FLOOR) : s.similarity_threshold;
    if (near === undefined || near.similarity < threshold) return this.#miss(base);
    if (!usable(base, near.entry)) return this.#miss(base);
    return this.#found(base, near.entry, near.similarity, 'semantic');
  }

  #found(base: Lookup, e: MemEntry, similarity: number, tier: 'exact' | 'semantic'): HookAnswer | undefined {
    const { call } = base;
    if (base.settings.mode === 'shadow') {
      // Answered upstream as usual; the end of the call says whether the cached answer would have done.
      this.#note(call, { hit: false, similarity, savedCostUsd: 0, shadowOf: e.answer, write: base });
      return undefined;
    }
    const chat = call.chat;
    if (chat === undefined) return undefined;
    const ageSeconds = Math.max(0, Math.floor((base.now - e.createdAt) / 1000));
    this.#note(call, { hit: true, similarity, savedCostUsd: e.costUsd, shadowOf: undefined, write: undefined });
    addReplyHeader(call, 'x-svc-cache', 'HIT');
    addReplyHeader(call, 'x-svc-cache-similarity', tier === 'exact' ? '1.0' : similarity.toFixed(4));
    addReplyHeader(call, 'x-svc-cache-age', String(ageSeconds));
    call.hookTrace = { ...call.hookTrace, cache: { hit: tier, similarity } };
    this.#memory.touch(e);
    if (e.storeId !== undefined) this.#touched.add(e.storeId);
    return { outcome: hitOutcome(chat, e.answer), modelUsed: e.answer.model, vendor: e.vendor, policy: 'cache' };
  }

  #miss(base: Lookup): undefined {
    this.#note(base.call, { hit: false, similarity: null, savedCostUsd: 0, shadowOf: undefined, write: base });
    this.#memory.useUpstreamWait();
    return undefined;
  }

  /** Keeps what the lookup found for the end of the call; a call whose answer is to be kept asks for it in IR form. */
  #note(call: ProxyCall, note: CacheNote): void {
    setSlot(call, NOTE, note);
    if (note.write !== undefined && call.chat !== undefined) call.chat.collectAnswer = true;
    atCallEnd(call, (record) => {
      if (record !== undefined) this.#ended(call, record);
    });
  }

  #ended(call: ProxyCall, record: CallRecord): void {
    const note = slotOf(call, NOTE);
    if (note === undefined) return;
    const { shadowOf, write } = note;
    noteFeature(record, 'cache', {
      cache: note.hit ? 'hit' : 'miss',
      cacheSimilarity: note.similarity,
      savedCostUsd: note.savedCostUsd,
      cacheShadowMatch: shadowOf !== undefined && record.answer !== null ? sameAnswer(record.answer, shadowOf) : null,
    });
    if (write === undefined || call.chat === undefined) return;
    // The end steps run just before the answer is written; the entry is made right after, off the
    // caller's wait. setImmediate still runs before the loop next polls for input, so a request the
    // caller sends once it has this answer always finds the entry.
    this.#writes.track(
      new Promise<void>((resolve) =>
        setImmediate(() => {
          try {
            this.#write(write, record);
          } finally {
            resolve();
          }
        }),
      ),
    );
  }

  #write(base: Lookup, record: CallRecord): void {
    const answer = record.answer;
    if (record.status !== 200 || answer === null || !STORABLE.has(answer.stopReason)) return;
    const now = this.#now();
    const { settings } = base;
    const entry: MemEntry = {
      key: entryKey(base.tenant, base.exact),
      projectId: base.projectId,
      tenant: base.tenant,
      exactKey: base.exact,
      partitionKey: base.partition,
      model: base.call.modelRequested,
      embedder: base.embedding?.embedder ?? null,
      vector: base.embedding?.vector ?? null,
      answer,
      vendor: record.vendor,
      maxTokens: base.call.chat?.ir.params.maxTokens,
      costUsd: record.costUsd,
      createdAt: now,
      expiresAt: now + settings.ttl_seconds * 1000,
      storeId: undefined,
      written: undefined,
    };
    // The exact tier serves the answer at once; its vector is indexed in the next batch.
    const evicted = this.#memory.add(entry, settings.max_entries, true);
    const stored: StoredAnswer = { answer, max_tokens: entry.maxTokens ?? null, provider: entry.vendor };
    entry.written = this.#writes.add(entry, {
      projectId: entry.projectId,
      tenant: entry.tenant,
      partitionKey: entry.partitionKey,
      exactKey: entry.exactKey,
      model: entry.model,
      embedder: entry.embedder,
      vector: entry.vector,
      response: stored as unknown as CacheEntry['response'],
      inputTokens: answer.usage.input,
      outputTokens: answer.usage.output,
      costUsd: entry.costUsd,
      createdAt: entry.createdAt,
      expiresAt: entry.expiresAt,
    });
    for (const e of evicted) this.#forget(e);
  }

  /**
   * Deletes an evicted entry's row once its write has landed (else the write would outlive the
   * delete). By id and creation time: a newer answer for the same key reuses the row and must stay.
   */
  #forget(e: MemEntry): void {
    this.#writes.track(
      (e.written ?? Promise.resolve()).then(() =>
        e.storeId === undefined ? undefined : this.#deps.store.removeVersion(e.storeId, e.createdAt),
      ),
    );
  }

  #load(row: CacheEntry): void {
    const entry = entryOf(row);
    if (entry === undefined) return;
    const limit = this.settingsOf(row.projectId)?.max_entries ?? Number.MAX_SAFE_INTEGER;
    for (const e of this.#memory.add(entry, limit)) this.#forget(e);
  }

  /** The cache's place in the pipeline (registered in app.ts with the other features). */
  readonly feature: PipelineFeature = { beforeAttempt: this.lookup };

  /** Entries held in memory for the project (this instance). */
  entries(projectId: string): number {
    return this.#memory.count(projectId);
  }

  /** Deletes every entry of the project, in memory and in the store; returns how many the store had. */
  async purge(projectId: string): Promise<number> {
    // Writes still in flight would land after the delete and come back at the next start.
    await this.#writes.settle();
    this.#replication.notePurge(projectId);
    this.#memory.purgeProject(projectId);
    const n = await this.#deps.store.purgeProject(projectId);
    this.#replication.projectPurged(projectId);
    return n;
  }

  /** Drops expired entries (memory and store) and records the hits of the last period. */
  async sweep(): Promise<void> {
    const now = this.#now();
    this.#memory.expire(now);
    try {
      await this.#deps.store.sweepExpired(now, 10_000);
      await this.#flushTouches();
    } catch (err) {
      this.#deps.logger.warn({ err }, 'semantic cache: sweep failed');
    }
  }

  async #flushTouches(): Promise<void> {
    if (this.#touched.size === 0) return;
    const ids = [...this.#touched];
    this.#touched.clear();
    await this.#deps.store.touchMany(ids, this.#now());
  }
}

interface Lookup {
  call: ProxyCall;
  settings: CacheSettings;
  projectId: string;
  tenant: string;
  exact: string;
  partition: string;
  now: number;
  embedding: Embedding | undefined;
}

/** A live entry whose answer fits this request's max_tokens. */
function usable({ call, settings, now }: Lookup, e: MemEntry): boolean {
  // A TTL shortened after the entry was written applies to it too.
  if (e.expiresAt <= now || e.createdAt + settings.ttl_seconds * 1000 <= now) return false;
  const ir = call.chat?.ir;
  const stored = { outputTokens: e.answer.usage.output, stopReason: e.answer.stopReason, maxTokens: e.maxTokens };
  return ir !== undefined && fitsMaxTokens(ir, stored);
}

/** Not looked up (and not logged as a miss): the reason goes to the decision trace. */
function skipped(call: ProxyCall, reason: string): undefined {
  call.hookTrace = { ...call.hookTrace, cache: { skipped: reason } };
  return undefined;
}

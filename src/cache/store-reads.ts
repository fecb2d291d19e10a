// The cache's reads of its store: every live row (at start, and again after the change bus missed
// what the other instances announced), how memory differs from such a read, and the memory entry a
// stored row becomes.
import type { ChatResponse } from '../ir/types.ts';
import type { CacheEntry, CacheEntryStore } from '../store/cache-entries.ts';
import { type CacheMemory, entryKey, type MemEntry } from './memory.ts';

const LOAD_PAGE = 1000;

/** The `response` column: the answer in IR form and what serving it again needs. */
export interface StoredAnswer {
  answer: ChatResponse;
  max_tokens: number | null;
  /** Stored under this name since the first entries: the vendor that answered. */
  provider: string | null;
}

/**
 * The live rows, least recently used first over all of them (pages come in id order): loaded in that
 * order, each project's order ends with its most recent entry, and a project over max_entries drops
 * its oldest ones.
 */
export async function readLive(store: CacheEntryStore, now: number): Promise<CacheEntry[]> {
  const rows: CacheEntry[] = [];
  for (;;) {
    const page = await store.listLive(now, { afterId: rows.at(-1)?.id, limit: LOAD_PAGE });
    rows.push(...page);
    if (page.length < LOAD_PAGE) break;
  }
  return rows.sort((a, b) => a.lastUsedAt - b.lastUsedAt);
}

/** The entry memory holds for a stored row; undefined when the row holds no answer it can serve. */
export function entryOf(row: CacheEntry): MemEntry | undefined {
  const stored = row.response as unknown as StoredAnswer | null;
  if (stored === null || typeof stored !== 'object' || stored.answer === undefined) return undefined;
  return {
    key: entryKey(row.tenant, row.exactKey),
    projectId: row.projectId,
    tenant: row.tenant,
    exactKey: row.exactKey,
    partitionKey: row.partitionKey,
    model: row.model,
    embedder: row.embedder,
    vector: row.vector,
    answer: stored.answer,
    vendor: stored.provider ?? null,
    maxTokens: stored.max_tokens ?? undefined,
    costUsd: row.costUsd,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    storeId: row.id,
    written: undefined,
  };
}

/**
 * How memory differs from a read of the store (after a gap in the change bus). `before` is what memory
 * held when the read began; only those entries are judged, as the read may miss a row written since.
 * - gone: entries written before the read whose rows it did not return (purged, evicted or deleted
 *   elsewhere): memory drops them, with no row left to delete.
 * - missing: rows memory lacks, or holds an older answer of (a row reused for a newer answer). Not the
 *   row of an entry memory held before but no longer does (replaced, evicted or purged here meanwhile),
 *   and not one whose key waits for its batch (that write replaces the row).
 */
export function compareWithStore(
  memory: CacheMemory,
  before: readonly MemEntry[],
  rows: readonly CacheEntry[],
): { gone: MemEntry[]; missing: CacheEntry[] } {
  const live = new Set(rows.map((r) => r.id));
  const known = new Map<string, MemEntry>();
  for (const e of before) if (e.storeId !== undefined) known.set(e.storeId, e);
  const gone = before.filter((e) => e.written === undefined && e.storeId !== undefined && !live.has(e.storeId));
  const missing = rows.filter((row) => {
    const was = known.get(row.id);
    if (was !== undefined && !memory.holds(was)) return false;
    const held = memory.exact(entryKey(row.tenant, row.exactKey));
    return held === undefined || (held.written === undefined && held.createdAt < row.createdAt);
  });
  return { gone, missing };
}

// Lookup structure over the catalog. Built once; every tier is a Map probe except the final
// longest-prefix scan, and answers (misses too) are memoized because the same few ids repeat on
// every request.
import type { VendorId } from '../types.ts';
import { isPrefixMatch, looseModelId, normalizeModelId, stripWrappers } from './normalize.ts';
import type { ModelInfo, VendorCatalog } from './types.ts';

const MEMO_LIMIT = 10_000;

/** Bedrock's `:0` tail (throughput / context variant) never changes the on-demand price. */
function withoutThroughput(id: string): string {
  return id.replace(/:\d+$/, '');
}

function keyOf(vendor: VendorId, id: string): string {
  return `${vendor}\u0000${id}`;
}

/** Adds unless taken: earlier (more canonical) entries keep a contested key. */
function addOnce(map: Map<string, ModelInfo>, key: string, info: ModelInfo): void {
  if (!map.has(key)) map.set(key, info);
}

export class ModelIndex {
  private readonly exact = new Map<string, ModelInfo>();
  private readonly wrapped = new Map<string, ModelInfo>();
  private readonly normalized = new Map<string, ModelInfo>();
  private readonly loose = new Map<string, ModelInfo>();
  /** Per vendor, candidate prefixes longest first. */
  private readonly prefixes = new Map<VendorId, Array<[string, ModelInfo]>>();
  private readonly memo = new Map<string, ModelInfo | null>();

  constructor(catalogs: readonly VendorCatalog[]) {
    for (const { vendor, models } of catalogs) {
      const looseSeen = new Map<string, ModelInfo | null>();
      // Ids that are already canonical claim their normalized key first, so `gpt-4o` beats the
      // dated `gpt-4o-2024-05-13` snapshot for the shared key `gpt-4o`.
      const ordered = [...models].sort(
        (a, b) => Number(normalizeModelId(vendor, b.id) === b.id) - Number(normalizeModelId(vendor, a.id) === a.id),
      );
      for (const info of ordered) {
        const norm = normalizeModelId(vendor, info.id);
        this.exact.set(keyOf(vendor, info.id), info);
        addOnce(this.wrapped, keyOf(vendor, stripWrappers(vendor, info.id)), info);
        addOnce(this.normalized, keyOf(vendor, norm), info);
        const loose = looseModelId(norm);
        // A loose key shared by two entries (Titan v1 / v2) says nothing: drop it.
        looseSeen.set(loose, looseSeen.has(loose) && looseSeen.get(loose) !== info ? null : info);
      }
      const candidates: Array<[string, ModelInfo]> = [];
      for (const [loose, info] of looseSeen) {
        if (!info) continue;
        this.loose.set(keyOf(vendor, loose), info);
        candidates.push([loose, info]);
      }
      for (const info of ordered) candidates.push([normalizeModelId(vendor, info.id), info]);
      candidates.sort((a, b) => b[0].length - a[0].length);
      this.prefixes.set(vendor, candidates);
    }
  }

  lookup(vendor: VendorId, model: string): ModelInfo | undefined {
    const key = keyOf(vendor, model);
    const memoized = this.memo.get(key);
    if (memoized !== undefined) return memoized ?? undefined;
    const found = this.exact.get(key) ?? this.resolve(vendor, model);
    if (this.memo.size >= MEMO_LIMIT) {
      // Oldest first: Map iteration follows insertion order.
      const oldest = this.memo.keys().next();
      if (!oldest.done) this.memo.delete(oldest.value);
    }
    this.memo.set(key, found ?? null);
    return found;
  }

  /**
   * `anthropic.claude-sonnet-4-5` or `amazon.nova-pro-v1` find the one versioned entry; a query that
   * names another version (`amazon.nova-pro-v2:0`) does not, since it may be another model.
   */
  private looseHit(vendor: VendorId, norm: string): ModelInfo | undefined {
    const loose = looseModelId(norm);
    const found = this.loose.get(keyOf(vendor, loose));
    if (!found) return undefined;
    const asked = withoutThroughput(norm);
    if (asked === loose || asked === withoutThroughput(normalizeModelId(vendor, found.id))) return found;
    return undefined;
  }

  private resolve(vendor: VendorId, model: string): ModelInfo | undefined {
    const wrapped = this.wrapped.get(keyOf(vendor, stripWrappers(vendor, model)));
    if (wrapped) return wrapped;
    const norm = normalizeModelId(vendor, model);
    const hit = this.normalized.get(keyOf(vendor, norm)) ?? this.looseHit(vendor, norm);
    if (hit) return hit;
    for (const [prefix, info] of this.prefixes.get(vendor) ?? []) {
      if (isPrefixMatch(norm, prefix)) return info;
    }
    return undefined;
  }
}

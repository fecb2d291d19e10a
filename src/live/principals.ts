// API key hash -> principal, served from memory. An unknown hash costs one store read; the answer
// (found or not) is remembered, so a steady stream of requests never awaits the database. Kept
// current by `api_key` change events (create, update, rotate, revoke, project deletion) and the
// periodic poll. A rotated key is known under both hashes until its grace period ends; the old one
// carries the end, so every instance refuses it at the same instant without another event.
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { hashApiKey } from '../crypto/api-keys.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { RateLimits } from '../ports/counters.ts';
import type { ApiKeyAuthRow, OrgKeyStore } from '../store/org-keys.ts';
import { type CompiledPatterns, compileModelPatterns } from '../util/model-patterns.ts';
import { connectFeed, type Feed, Freshness } from './feed.ts';

export interface Principal {
  orgId: string;
  /** Null for org-wide keys. */
  projectId: string | null;
  keyId: string;
  /** The key's own rate limits (null for none); the row's object, shared, so reading it allocates nothing. */
  rateLimits: RateLimits | null;
  /**
   * The key's allowed models, compiled when the key was loaded so the per-call check only runs the
   * regexes; null or absent for every model (principals rebuilt by background jobs carry none).
   */
  modelAllow?: CompiledPatterns | null;
  /** Epoch ms after which the key answers `api_key_expired`; null or absent for never. */
  expiresAtMs?: number | null;
  /** Set on a rotated-out plaintext: epoch ms when its grace period ends. */
  graceEndsMs?: number | null;
}

/** What the mirror reads from the key store. */
export type PrincipalSource = Pick<OrgKeyStore, 'findByHash' | 'findAuthRow' | 'changedSince'> &
  Partial<Pick<OrgKeyStore, 'touchKeys'>>;

const NEGATIVE_TTL_MS = 2000;
/** last_used_at is a coarse signal: one write per key per minute at most, batched by a timer. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const USAGE_FLUSH_MS = 10_000;

const msOf = (iso: string | null): number | null => {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};

export class PrincipalMirror {
  readonly #store: PrincipalSource;
  readonly #known = new Map<string, Principal>();
  /** Current hash first, then the rotated-out one while the row still names it. */
  readonly #hashesById = new Map<string, string[]>();
  readonly #usedMark = new Map<string, number>();
  #usedPending = new Map<string, string>();
  #usageTimer: NodeJS.Timeout | undefined;
  readonly #unknown = new LRUCache<string, true>({ max: 50_000, ttl: NEGATIVE_TTL_MS });
  readonly #pending = new Map<string, Promise<Principal | undefined>>();
  readonly #freshness = new Freshness();
  readonly #feed: Feed<ApiKeyAuthRow>;

  constructor(store: PrincipalSource, bus: ChangeBus, logger: Logger, intervalMs: number) {
    this.#store = store;
    this.#feed = connectFeed(
      {
        name: 'api-keys',
        topic: 'api_key',
        reload: (ev) => store.findAuthRow(ev.orgId, ev.id),
        changedSince: (since) => store.changedSince(since),
        apply: (row, ticket) => this.#apply(row, ticket),
        gone: (ev) => this.#drop(ev.id),
      },
      this.#freshness,
      bus,
      logger,
      intervalMs,
    );
    if (store.touchKeys) {
      this.#usageTimer = setInterval(() => void this.flushUsage().catch(() => {}), USAGE_FLUSH_MS);
      this.#usageTimer.unref();
    }
  }

  /** Sync when the hash is cached (the steady state); a promise only for a never-seen key. */
  authenticate(plaintext: string): Principal | undefined | Promise<Principal | undefined> {
    const hash = hashApiKey(plaintext);
    const hit = this.#known.get(hash);
    if (hit) return hit;
    if (this.#unknown.has(hash)) return undefined;
    let p = this.#pending.get(hash);
    if (!p) {
      p = this.#load(hash).finally(() => this.#pending.delete(hash));
      this.#pending.set(hash, p);
    }
    return p;
  }

  async #load(hash: string): Promise<Principal | undefined> {
    const ticket = this.#freshness.ticket();
    const row = await this.#store.findByHash(hash);
    if (row) this.#apply(row, ticket);
    const found = this.#known.get(hash);
    if (!found) this.#unknown.set(hash, true);
    return found;
  }

  #apply(row: ApiKeyAuthRow, ticket: number): void {
    if (!this.#freshness.admit(row.id, row.updatedAt, row.revokedAt !== null, ticket)) return;
    if (row.revokedAt !== null) {
      this.#drop(row.id);
      this.#unknown.set(row.keyHash, true);
      if (row.previousKeyHash !== null) this.#unknown.set(row.previousKeyHash, true);
      return;
    }
    this.#forget(row.id);
    const current: Principal = {
      orgId: row.orgId,
      projectId: row.projectId,
      keyId: row.id,
      rateLimits: row.rateLimits,
      modelAllow: row.allowedModels === null ? null : compileModelPatterns(row.allowedModels),
      expiresAtMs: msOf(row.expiresAt),
      graceEndsMs: null,
    };
    const hashes = [row.keyHash];
    this.#known.set(row.keyHash, current);
    this.#unknown.delete(row.keyHash);
    if (row.previousKeyHash !== null) {
      // A missing end would mean forever; a malformed row ends the grace now instead.
      this.#known.set(row.previousKeyHash, { ...current, graceEndsMs: msOf(row.previousKeyExpiresAt) ?? 0 });
      this.#unknown.delete(row.previousKeyHash);
      hashes.push(row.previousKeyHash);
    }
    this.#hashesById.set(row.id, hashes);
  }

  /** Unmaps the key's hashes (a rotation may have replaced them) without refusing them outright. */
  #forget(keyId: string): string[] {
    const hashes = this.#hashesById.get(keyId) ?? [];
    for (const h of hashes) this.#known.delete(h);
    this.#hashesById.delete(keyId);
    return hashes;
  }

  #drop(keyId: string): void {
    for (const h of this.#forget(keyId)) this.#unknown.set(h, true);
  }

  /** Called per authenticated call; a map lookup unless the key's minute mark has passed. */
  noteUse(p: Principal, now: number): void {
    const mark = this.#usedMark.get(p.keyId);
    if (mark !== undefined && now - mark < LAST_USED_RESOLUTION_MS) return;
    this.#usedMark.set(p.keyId, now);
    this.#usedPending.set(p.keyId, new Date(now).toISOString());
  }

  /** Writes the pending last-used times (the timer calls it; tests call it to avoid waiting). */
  async flushUsage(): Promise<void> {
    if (this.#usedPending.size === 0 || !this.#store.touchKeys) return;
    const batch = this.#usedPending;
    this.#usedPending = new Map();
    await this.#store.touchKeys(batch);
  }

  /** Polls the store now instead of waiting for the timer. */
  refresh(): Promise<void> {
    return this.#feed.refresh();
  }

  stop(): void {
    this.#feed.stop();
    clearInterval(this.#usageTimer);
  }
}

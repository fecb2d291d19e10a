// API key hash -> principal, served from memory. An unknown hash costs one store read; the answer
// (found or not) is remembered, so a steady stream of requests never awaits the database. Kept
// current by `api_key` change events (create, update, rotate, revoke, project deletion) and the
// periodic poll. A rotated key is known under both hashes until its grace period ends; the old one
// carries the end, so every instance refuses it at the same instant without another event.
import type { Logger } from 'pino';
import { hashApiKey } from '../crypto/api-keys.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { RateLimits } from '../ports/counters.ts';
import type { Role } from '../ports/roles.ts';
import type { ApiKeyAuthRow, OrgKeyStore } from '../store/org-keys.ts';
import { type CompiledPatterns, compileModelPatterns } from '../util/model-patterns.ts';
import { LiveMirror } from './feed.ts';

export interface Principal {
  orgId: string;
  /** Null for org-wide keys. */
  projectId: string | null;
  keyId: string;
  /**
   * Set on every principal authentication yields; absent only on ones rebuilt by background jobs,
   * which call models and nothing else (the management gate reads absent as inference).
   */
  role?: Role;
  /**
   * Set when a person signed in through single sign-on is calling (a dashboard session) rather than
   * an API key; `keyId` then holds the user's id, so per-caller bookkeeping needs no second field.
   */
  user?: { id: string; name: string | null; email: string | null };
  /** The key's own rate limits (null for none); the row's object, shared, so reading it allocates nothing. */
  rateLimits: RateLimits | null;
  /**
   * The key's allowed models, compiled when the key was loaded so the per-call check only runs the
   * regexes; null or absent for every model (principals rebuilt by background jobs carry none).
   */
  modelAllow?: CompiledPatterns | null;
  /** The key's `<server>__<tool>` patterns for the MCP gateway; null or absent for every tool. */
  toolAllow?: string[] | null;
  /** Epoch ms after which the key answers `api_key_expired`; null or absent for never. */
  expiresAtMs?: number | null;
  /** Set on a rotated-out plaintext: epoch ms when its grace period ends. */
  graceEndsMs?: number | null;
  /** The key's metadata (null or absent for none): logged with each call, and budgets can select on it. */
  keyMetadata?: Readonly<Record<string, string>> | null;
}

/** What the mirror reads from the key store. */
export type PrincipalSource = Pick<OrgKeyStore, 'findByHash' | 'findAuthRow' | 'changedSince'> &
  Partial<Pick<OrgKeyStore, 'touchKeys'>>;

const NEGATIVE_TTL_MS = 2000;
/** Keys remembered with their hash; a deployment with more live keys hashes the rest per call. */
const HASHES_KEPT = 10_000;
/** last_used_at is a coarse signal: one write per key per minute at most, batched by a timer. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const USAGE_FLUSH_MS = 10_000;

const msOf = (iso: string | null): number | null => {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};

/**
 * Hashes known not to be keys, each for `ttlMs`, at most `max` of them (the oldest dropped first).
 * A plain map that grows with use: lru-cache preallocates its arrays for `max` entries (~2.4 MB for
 * these 50,000), which an idle gateway would hold for nothing.
 */
class RecentMisses {
  readonly #until = new Map<string, number>();
  constructor(
    readonly max: number,
    readonly ttlMs: number,
  ) {}

  has(hash: string): boolean {
    const until = this.#until.get(hash);
    if (until === undefined) return false;
    if (Date.now() < until) return true;
    this.#until.delete(hash);
    return false;
  }

  set(hash: string): void {
    // Deleted first so a refreshed entry moves to the young end.
    this.#until.delete(hash);
    this.#until.set(hash, Date.now() + this.ttlMs);
    if (this.#until.size > this.max) this.#until.delete(this.#until.keys().next().value as string);
  }

  delete(hash: string): void {
    this.#until.delete(hash);
  }
}

export class PrincipalMirror extends LiveMirror<ApiKeyAuthRow> {
  readonly #store: PrincipalSource;
  readonly #known = new Map<string, Principal>();
  /** Current hash first, then the rotated-out one while the row still names it. */
  readonly #hashesById = new Map<string, string[]>();
  readonly #usedMark = new Map<string, number>();
  #usedPending = new Map<string, string>();
  #usageTimer: NodeJS.Timeout | undefined;
  readonly #unknown = new RecentMisses(50_000, NEGATIVE_TTL_MS);
  readonly #pending = new Map<string, Promise<Principal | undefined>>();
  /**
   * Presented key -> its hash, so a steady caller is not hashed per call (SHA-256 was ~1% of a
   * call's CPU). Only a pure function is cached, never an answer: every call still looks its hash
   * up in #known / #unknown, so revocation, rotation and expiry act exactly as without it. Filled
   * only by keys found valid, so random keys cannot grow it; a forgotten key's entry is dropped.
   */
  readonly #hashOf = new Map<string, string>();
  /** The reverse of #hashOf, so forgetting a key finds its entry without a scan. */
  readonly #plaintextOf = new Map<string, string>();

  constructor(store: PrincipalSource, bus: ChangeBus, logger: Logger, intervalMs: number) {
    const reads = {
      get: (orgId: string, id: string) => store.findAuthRow(orgId, id),
      changedSince: (since: string) => store.changedSince(since),
    };
    const final = (row: ApiKeyAuthRow) => row.revokedAt !== null;
    super({ name: 'api-keys', topic: 'api_key', store: reads, final }, bus, logger, intervalMs);
    this.#store = store;
    if (store.touchKeys) {
      this.#usageTimer = setInterval(() => void this.flushUsage().catch(() => {}), USAGE_FLUSH_MS);
      this.#usageTimer.unref();
    }
  }

  /** Sync when the hash is cached (the steady state); a promise only for a never-seen key. */
  authenticate(plaintext: string): Principal | undefined | Promise<Principal | undefined> {
    const kept = this.#hashOf.get(plaintext);
    const hash = kept ?? hashApiKey(plaintext);
    const hit = this.#known.get(hash);
    if (hit) {
      if (kept === undefined) this.#keepHash(plaintext, hash);
      return hit;
    }
    if (this.#unknown.has(hash)) return undefined;
    let p = this.#pending.get(hash);
    if (!p) {
      p = this.#load(hash).finally(() => this.#pending.delete(hash));
      this.#pending.set(hash, p);
    }
    return p;
  }

  #keepHash(plaintext: string, hash: string): void {
    // Oldest first out; a key evicted while still in use is simply hashed again and re-added.
    if (this.#hashOf.size >= HASHES_KEPT) {
      const [oldest, itsHash] = this.#hashOf.entries().next().value as [string, string];
      this.#hashOf.delete(oldest);
      this.#plaintextOf.delete(itsHash);
    }
    this.#hashOf.set(plaintext, hash);
    this.#plaintextOf.set(hash, plaintext);
  }

  async #load(hash: string): Promise<Principal | undefined> {
    await this.load(async () => {
      const row = await this.#store.findByHash(hash);
      return row ? [row] : [];
    });
    const found = this.#known.get(hash);
    if (!found) this.#unknown.set(hash);
    return found;
  }

  protected override apply(row: ApiKeyAuthRow): void {
    if (row.revokedAt !== null) {
      this.remove(row.id);
      this.#unknown.set(row.keyHash);
      if (row.previousKeyHash !== null) this.#unknown.set(row.previousKeyHash);
      return;
    }
    this.#forget(row.id);
    const current: Principal = {
      orgId: row.orgId,
      projectId: row.projectId,
      keyId: row.id,
      role: row.role,
      rateLimits: row.rateLimits,
      modelAllow: row.allowedModels === null ? null : compileModelPatterns(row.allowedModels),
      toolAllow: row.allowedTools,
      expiresAtMs: msOf(row.expiresAt),
      graceEndsMs: null,
      keyMetadata: row.metadata === null || Object.keys(row.metadata).length === 0 ? null : row.metadata,
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
    this.#hashesById.delete(keyId);
    for (const h of hashes) {
      this.#known.delete(h);
      // Not needed for correctness (a hash is a hash): a plaintext that opens nothing is not kept.
      const plaintext = this.#plaintextOf.get(h);
      if (plaintext === undefined) continue;
      this.#plaintextOf.delete(h);
      this.#hashOf.delete(plaintext);
    }
    return hashes;
  }

  /** Refuses the key's hashes from now on: it was revoked, or no longer exists. */
  protected override remove(keyId: string): void {
    for (const h of this.#forget(keyId)) this.#unknown.set(h);
  }

  /** Called per authenticated call; a map lookup unless the key's minute mark has passed. */
  /** The metadata of a key this instance has authenticated (its calls' log rows carry it). */
  keyMetadata(keyId: string): Readonly<Record<string, string>> | null {
    const hash = this.#hashesById.get(keyId)?.[0];
    return (hash === undefined ? undefined : this.#known.get(hash)?.keyMetadata) ?? null;
  }

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

  override stop(): void {
    super.stop();
    clearInterval(this.#usageTimer);
  }
}

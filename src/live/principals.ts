// API key hash -> principal, served from memory. An unknown hash costs one store read; the answer
// (found or not) is remembered, so a steady stream of requests never awaits the database. Kept
// current by `api_key` change events (create, update, revoke, project deletion) and the periodic poll.
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { hashApiKey } from '../crypto/api-keys.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { RateLimits } from '../ports/counters.ts';
import type { ApiKeyAuthRow, OrgKeyStore } from '../store/org-keys.ts';
import { connectFeed, type Feed, Freshness } from './feed.ts';

export interface Principal {
  orgId: string;
  /** Null for org-wide keys. */
  projectId: string | null;
  keyId: string;
  /** The key's own rate limits (null for none); the row's object, shared, so reading it allocates nothing. */
  rateLimits: RateLimits | null;
}

/** What the mirror reads from the key store. */
export type PrincipalSource = Pick<OrgKeyStore, 'findByHash' | 'findAuthRow' | 'changedSince'>;

const NEGATIVE_TTL_MS = 2000;

export class PrincipalMirror {
  readonly #store: PrincipalSource;
  readonly #known = new Map<string, Principal>();
  readonly #hashById = new Map<string, string>();
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
      this.#known.delete(row.keyHash);
      this.#hashById.delete(row.id);
      this.#unknown.set(row.keyHash, true);
      return;
    }
    this.#unknown.delete(row.keyHash);
    this.#known.set(row.keyHash, {
      orgId: row.orgId,
      projectId: row.projectId,
      keyId: row.id,
      rateLimits: row.rateLimits,
    });
    this.#hashById.set(row.id, row.keyHash);
  }

  #drop(keyId: string): void {
    const hash = this.#hashById.get(keyId);
    if (hash === undefined) return;
    this.#known.delete(hash);
    this.#hashById.delete(keyId);
    this.#unknown.set(hash, true);
  }

  /** Polls the store now instead of waiting for the timer. */
  refresh(): Promise<void> {
    return this.#feed.refresh();
  }

  stop(): void {
    this.#feed.stop();
  }
}

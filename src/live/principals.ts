// API key hash -> principal, served from memory. An unknown hash costs one store read; the answer
// (found or not) is remembered, so a steady stream of requests never awaits the database.
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { hashApiKey } from '../crypto/api-keys.ts';
import type { ApiKeyAuthRow, OrgKeyStore } from '../store/org-keys.ts';
import { newestOf, type Refresher, startRefresher } from '../util/refresher.ts';

export interface Principal {
  orgId: string;
  /** Null for org-wide keys. */
  projectId: string | null;
  keyId: string;
}

const NEGATIVE_TTL_MS = 2000;

export class PrincipalCache {
  readonly #store: OrgKeyStore;
  readonly #known = new Map<string, Principal>();
  readonly #unknown = new LRUCache<string, true>({ max: 50_000, ttl: NEGATIVE_TTL_MS });
  readonly #pending = new Map<string, Promise<Principal | undefined>>();
  readonly #refresher: Refresher;

  constructor(store: OrgKeyStore, logger: Logger, intervalMs: number) {
    this.#store = store;
    this.#refresher = startRefresher('api-keys', intervalMs, logger, async (since) => {
      const rows = await store.changedSince(since);
      for (const r of rows) this.apply(r);
      return newestOf(rows);
    });
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
    const row = await this.#store.findByHash(hash);
    if (row) this.apply(row);
    else this.#unknown.set(hash, true);
    return this.#known.get(hash);
  }

  /** Called by in-process writes (create, revoke) and by the refresh poll. */
  apply(row: ApiKeyAuthRow): void {
    if (row.revokedAt !== null) {
      this.#known.delete(row.keyHash);
      this.#unknown.set(row.keyHash, true);
      return;
    }
    this.#unknown.delete(row.keyHash);
    this.#known.set(row.keyHash, { orgId: row.orgId, projectId: row.projectId, keyId: row.id });
  }

  /** Drops every cached principal of a key id (revocation by id, when the hash is not at hand). */
  forgetKey(keyId: string): void {
    for (const [hash, p] of this.#known) {
      if (p.keyId === keyId) {
        this.#known.delete(hash);
        this.#unknown.set(hash, true);
      }
    }
  }

  forgetProject(projectId: string): void {
    for (const [hash, p] of this.#known) {
      if (p.projectId === projectId) {
        this.#known.delete(hash);
        this.#unknown.set(hash, true);
      }
    }
  }

  refresh(): Promise<void> {
    return this.#refresher.tick();
  }

  stop(): void {
    this.#refresher.stop();
  }
}

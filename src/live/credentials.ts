// Decrypted provider credentials for the proxy's hot path. Each credential is decrypted once and
// replaced as a whole object on rotation: a request that already holds the old object finishes
// with the old key, new requests get the new one. Kept current by `credential` change events and
// the periodic poll.
import type { Logger } from 'pino';
import { credentialAad } from '../crypto/credential-aad.ts';
import type { SecretBox } from '../crypto/secretbox.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { Credential, VendorId } from '../providers/types.ts';
import type { ProviderRecord, ProviderStore } from '../store/providers.ts';
import { connectFeed, type Feed, Freshness } from './feed.ts';

export interface ResolvedCredential {
  id: string;
  vendor: VendorId;
  credential: Credential;
}

interface Entry extends ResolvedCredential {
  orgId: string;
  createdAt: string;
}

/** What the mirror reads from the provider store. */
export type CredentialSource = Pick<ProviderStore, 'get' | 'changedSince' | 'listAllActive'>;

export class CredentialMirror {
  readonly #store: CredentialSource;
  readonly #box: SecretBox;
  readonly #logger: Logger;
  readonly #byId = new Map<string, Entry>();
  readonly #fingerprint = new Map<string, string>();
  readonly #freshness = new Freshness();
  readonly #feed: Feed<ProviderRecord>;

  constructor(store: CredentialSource, box: SecretBox, bus: ChangeBus, logger: Logger, intervalMs: number) {
    this.#store = store;
    this.#box = box;
    this.#logger = logger;
    this.#feed = connectFeed(
      {
        name: 'provider-credentials',
        topic: 'credential',
        reload: (ev) => store.get(ev.orgId, ev.id),
        changedSince: (since) => store.changedSince(since),
        apply: (row, ticket) => this.#apply(row, ticket),
        gone: (ev) => this.#remove(ev.id),
      },
      this.#freshness,
      bus,
      logger,
      intervalMs,
    );
  }

  /** Loads every active credential; called once before the first call is served. */
  start(): Promise<void> {
    return this.#feed.load(() => this.#store.listAllActive());
  }

  #apply(row: ProviderRecord, ticket: number): void {
    if (!this.#freshness.admit(row.id, row.updatedAt, row.deletedAt !== null, ticket)) return;
    if (row.deletedAt !== null || row.status !== 'active') {
      this.#remove(row.id);
      return;
    }
    // Skip the decrypt when nothing that matters changed (the poll re-delivers recent rows).
    if (this.#byId.has(row.id) && this.#fingerprint.get(row.id) === fingerprint(row)) return;
    try {
      const apiKey = this.#box.decrypt(row.keyCiphertext, credentialAad(row.orgId, row.id));
      this.#byId.set(row.id, {
        id: row.id,
        orgId: row.orgId,
        vendor: row.vendorId as VendorId,
        createdAt: row.createdAt,
        credential: { apiKey, baseUrl: row.baseUrl },
      });
      this.#fingerprint.set(row.id, fingerprint(row));
    } catch {
      // Never include the ciphertext or key material in the log line.
      this.#logger.error({ credentialId: row.id }, 'cannot decrypt provider credential (wrong master key?)');
      this.#remove(row.id);
    }
  }

  #remove(id: string): void {
    this.#byId.delete(id);
    this.#fingerprint.delete(id);
  }

  /** The newest active credential of the org for the vendor. */
  resolve(orgId: string, vendor: VendorId): ResolvedCredential | undefined {
    let best: Entry | undefined;
    for (const e of this.#byId.values()) {
      if (e.orgId !== orgId || e.vendor !== vendor) continue;
      if (!best || e.createdAt > best.createdAt || (e.createdAt === best.createdAt && e.id > best.id)) best = e;
    }
    return best ? { id: best.id, vendor: best.vendor, credential: best.credential } : undefined;
  }

  get(orgId: string, credentialId: string): ResolvedCredential | undefined {
    const e = this.#byId.get(credentialId);
    if (!e || e.orgId !== orgId) return undefined;
    return { id: e.id, vendor: e.vendor, credential: e.credential };
  }

  /** Polls the store now instead of waiting for the timer. */
  refresh(): Promise<void> {
    return this.#feed.refresh();
  }

  stop(): void {
    this.#feed.stop();
  }
}

function fingerprint(row: ProviderRecord): string {
  return `${row.keyCiphertext}|${row.baseUrl ?? ''}|${row.status}`;
}

// Decrypted provider credentials for the proxy's hot path. Each credential is decrypted once and
// replaced as a whole object on rotation: a request that already holds the old object finishes
// with the old key, new requests get the new one.
import type { Logger } from 'pino';
import type { Credential, VendorId } from '../providers/types.ts';
import type { ProviderRecord, ProviderStore } from '../store/providers.ts';
import { newestOf, type Refresher, startRefresher } from '../util/refresher.ts';
import type { SecretBox } from '../crypto/secretbox.ts';

export interface ResolvedCredential {
  id: string;
  vendor: VendorId;
  credential: Credential;
}

interface Entry extends ResolvedCredential {
  orgId: string;
  createdAt: string;
}

export function credentialAad(orgId: string, credentialId: string): string {
  return `${orgId}:${credentialId}`;
}

export class CredentialCache {
  readonly #box: SecretBox;
  readonly #logger: Logger;
  readonly #byId = new Map<string, Entry>();
  readonly #fingerprint = new Map<string, string>();
  readonly #refresher: Refresher;

  constructor(store: ProviderStore, box: SecretBox, logger: Logger, intervalMs: number) {
    this.#box = box;
    this.#logger = logger;
    this.#refresher = startRefresher('provider-credentials', intervalMs, logger, async (since) => {
      const rows = await store.changedSince(since);
      for (const r of rows) this.apply(r);
      return newestOf(rows);
    });
  }

  /** Loads every active credential (called once at start). */
  warm(rows: ProviderRecord[]): void {
    for (const r of rows) this.apply(r);
  }

  apply(row: ProviderRecord): void {
    if (row.deletedAt !== null || row.status !== 'active') {
      this.remove(row.id);
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
      this.remove(row.id);
    }
  }

  remove(id: string): void {
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

  refresh(): Promise<void> {
    return this.#refresher.tick();
  }

  stop(): void {
    this.#refresher.stop();
  }
}

function fingerprint(row: ProviderRecord): string {
  return `${row.keyCiphertext}|${row.baseUrl ?? ''}|${row.status}`;
}

// Decrypted provider credentials for the proxy's hot path. Each credential is decrypted once and
// replaced as a whole object on rotation: a request that already holds the old object finishes
// with the old key, new requests get the new one. Kept current by `credential` change events and
// the periodic poll.
import type { Logger } from 'pino';
import { credentialAad } from '../crypto/credential-aad.ts';
import type { SecretBox } from '../crypto/secretbox.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { Credential, VendorId } from '../providers/types.ts';
import type { CredentialRecord, CredentialStore } from '../store/credentials.ts';
import { isDeleted, LiveMirror } from './feed.ts';

export interface ResolvedCredential {
  id: string;
  vendor: VendorId;
  credential: Credential;
  /** Share of the vendor's traffic; 0 = standby. */
  weight: number;
}

interface Entry extends ResolvedCredential {
  orgId: string;
}

const NONE: readonly ResolvedCredential[] = Object.freeze([]);

/** What the mirror reads from the provider store. */
export type CredentialSource = Pick<CredentialStore, 'get' | 'changedSince' | 'listAllActive'>;

export class CredentialMirror extends LiveMirror<CredentialRecord> {
  readonly #box: SecretBox;
  readonly #logger: Logger;
  readonly #byId = new Map<string, Entry>();
  /** `orgId vendor` -> that org's credentials of the vendor, oldest first; rebuilt on change. */
  readonly #byVendor = new Map<string, readonly ResolvedCredential[]>();
  readonly #fingerprint = new Map<string, string>();

  constructor(store: CredentialSource, box: SecretBox, bus: ChangeBus, logger: Logger, intervalMs: number) {
    const warm = () => store.listAllActive();
    super(
      { name: 'provider-credentials', topic: 'credential', store, final: isDeleted, warm },
      bus,
      logger,
      intervalMs,
    );
    this.#box = box;
    this.#logger = logger;
  }

  protected override apply(row: CredentialRecord): void {
    if (row.deletedAt !== null || row.status !== 'active') {
      this.remove(row.id);
      return;
    }
    // Skip the decrypt when nothing that matters changed (the poll re-delivers recent rows).
    if (this.#byId.has(row.id) && this.#fingerprint.get(row.id) === fingerprint(row)) return;
    try {
      const apiKey = this.#box.decrypt(row.keyCiphertext, credentialAad(row.orgId, row.id));
      const entry: Entry = {
        id: row.id,
        orgId: row.orgId,
        vendor: row.vendorId as VendorId,
        weight: row.weight,
        credential: { apiKey, baseUrl: row.baseUrl },
      };
      this.#byId.set(row.id, entry);
      this.#fingerprint.set(row.id, fingerprint(row));
      this.#reindex(entry.orgId, entry.vendor);
    } catch {
      // Never include the ciphertext or key material in the log line.
      this.#logger.error({ credentialId: row.id }, 'cannot decrypt provider credential (wrong master key?)');
      this.remove(row.id);
    }
  }

  protected override remove(id: string): void {
    const e = this.#byId.get(id);
    this.#byId.delete(id);
    this.#fingerprint.delete(id);
    if (e) this.#reindex(e.orgId, e.vendor);
  }

  #reindex(orgId: string, vendor: VendorId): void {
    const list: Entry[] = [];
    for (const e of this.#byId.values()) if (e.orgId === orgId && e.vendor === vendor) list.push(e);
    // Ids are time-ordered, so this is creation order: the order traffic is split in is stable.
    list.sort((a, b) => (a.id < b.id ? -1 : 1));
    const key = `${orgId} ${vendor}`;
    if (list.length === 0) this.#byVendor.delete(key);
    else this.#byVendor.set(key, Object.freeze(list));
  }

  /** Every active credential of the org for the vendor (the same array until one of them changes). */
  forVendor(orgId: string, vendor: VendorId): readonly ResolvedCredential[] {
    return this.#byVendor.get(`${orgId} ${vendor}`) ?? NONE;
  }

  get(orgId: string, credentialId: string): ResolvedCredential | undefined {
    const e = this.#byId.get(credentialId);
    if (!e || e.orgId !== orgId) return undefined;
    return e;
  }

  /** The org a live credential belongs to. */
  orgOf(credentialId: string): string | undefined {
    return this.#byId.get(credentialId)?.orgId;
  }
}

function fingerprint(row: CredentialRecord): string {
  return `${row.keyCiphertext}|${row.baseUrl ?? ''}|${row.status}|${row.weight}`;
}

// Model aliases and price overrides in memory, by organization: the proxy resolves an alias and
// prices a call without a database read. Kept current by `model_setting` change events and the
// periodic poll; a deleted setting stays in the store with deleted_at set, so the poll sees it go.
import type { Logger } from 'pino';
import type { ChangeBus } from '../ports/change-bus.ts';
import { asPriceOverride, type PriceOverride, priceKey } from '../providers/catalog/price-override.ts';
import type { VendorId } from '../providers/types.ts';
import type { ModelSettingRecord, ModelSettingStore } from '../store/model-settings.ts';
import { LiveMirror } from './feed.ts';

/** What the mirror reads from the store. */
export type ModelSettingSource = Pick<ModelSettingStore, 'get' | 'changedSince' | 'listAllLive'>;

interface Applied {
  orgId: string;
  kind: ModelSettingRecord['kind'];
  name: string;
}

const keyOf = (orgId: string, name: string) => `${orgId}\u0000${name}`;

export class ModelSettingsMirror extends LiveMirror<ModelSettingRecord> {
  readonly #aliases = new Map<string, string>();
  readonly #prices = new Map<string, PriceOverride>();
  /** What each setting id is applied as, so a rename-free delete finds its entry. */
  readonly #byId = new Map<string, Applied>();

  constructor(store: ModelSettingSource, bus: ChangeBus, logger: Logger, intervalMs: number) {
    const warm = () => store.listAllLive();
    // A deleted setting may be set again (the same row revives), so no state is final.
    super({ name: 'model-settings', topic: 'model_setting', store, warm, final: () => false }, bus, logger, intervalMs);
  }

  protected override apply(row: ModelSettingRecord): void {
    this.remove(row.id);
    if (row.deletedAt !== null) return;
    const key = keyOf(row.orgId, row.name);
    if (row.kind === 'alias' && typeof row.value === 'string') this.#aliases.set(key, row.value);
    else if (row.kind === 'price') {
      const price = asPriceOverride(row.value);
      if (!price) return;
      this.#prices.set(key, price);
    } else return;
    this.#byId.set(row.id, { orgId: row.orgId, kind: row.kind, name: row.name });
  }

  protected override remove(id: string): void {
    const was = this.#byId.get(id);
    if (!was) return;
    this.#byId.delete(id);
    (was.kind === 'alias' ? this.#aliases : this.#prices).delete(keyOf(was.orgId, was.name));
  }

  /** The model an alias stands for (`@slug` or `vendor/model`); undefined when it is no alias. */
  alias(orgId: string, name: string): string | undefined {
    return this.#aliases.get(keyOf(orgId, name));
  }

  /** The org's own rates for a model, under any spelling the catalog resolves. */
  price(orgId: string, vendor: VendorId, model: string): PriceOverride | undefined {
    if (this.#prices.size === 0) return undefined;
    return (
      this.#prices.get(keyOf(orgId, priceKey(vendor, model))) ?? this.#prices.get(keyOf(orgId, `${vendor}/${model}`))
    );
  }
}

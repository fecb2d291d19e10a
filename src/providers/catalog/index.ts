// Price and capability catalog: per-vendor JSON files under ./prices, loaded once at startup.
// Figures are public list prices (see each vendor's `source`); they label cost estimates, not invoices.
import type { VendorId } from '../types.ts';
import { loadCatalogs } from './load.ts';
import { ModelIndex } from './model-index.ts';
import type { ModelInfo, VendorCatalog } from './types.ts';

export { normalizeModelId } from './normalize.ts';
export type { LongContextPrice, ModelInfo, ModelKind, ModelPrice, VendorCatalog } from './types.ts';

const catalogs: readonly VendorCatalog[] = Object.freeze(loadCatalogs());
const byVendor = new Map<VendorId, VendorCatalog>(catalogs.map((c) => [c.vendor, c]));
const index = new ModelIndex(catalogs);

/**
 * Finds a model's price and capabilities. Tries the exact id, then normalized spellings (case,
 * snapshot dates such as `claude-sonnet-4-5-20250929`, Bedrock regional prefixes and ARNs, the
 * Fireworks `accounts/fireworks/models/` path, Gemini `models/`), then the longest catalog id the
 * model starts with (`gpt-4o-mini-tools` -> `gpt-4o-mini`). Anything else is unknown: undefined,
 * never a guess. Memoized; safe to call per request.
 */
export function lookupModel(vendor: VendorId, model: string): ModelInfo | undefined {
  return index.lookup(vendor, model);
}

/** All catalog entries, optionally for one vendor (model listings, UI, routing candidates). */
export function listModels(vendor?: VendorId): readonly ModelInfo[] {
  if (vendor) return byVendor.get(vendor)?.models ?? [];
  return catalogs.flatMap((c) => c.models);
}

/** The vendor's pricing source note ("<url> - as of 2026-11 ...; verify before billing"). */
export function vendorPriceSource(vendor: VendorId): string {
  return byVendor.get(vendor)?.source ?? '';
}

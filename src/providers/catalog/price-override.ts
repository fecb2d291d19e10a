// An organization's own rates for a model (negotiated prices), as the management API stores them:
// USD per 1M tokens, keyed by the model's catalog id so that every spelling a caller may send
// (`claude-sonnet-4-5-20250929`, a Bedrock regional id) finds the one override.
import type { VendorId } from '../types.ts';
import { lookupModel } from './index.ts';
import type { ModelPrice } from './types.ts';

/** The stored form (snake_case, as the API and the config file write it). */
export interface PriceOverride {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

/** A stored override read back; undefined when the value is not one (never trusted blindly). */
export function asPriceOverride(v: unknown): PriceOverride | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.input !== 'number' || typeof o.output !== 'number') return undefined;
  const out: PriceOverride = { input: o.input, output: o.output };
  if (typeof o.cache_read === 'number') out.cache_read = o.cache_read;
  if (typeof o.cache_write === 'number') out.cache_write = o.cache_write;
  return out;
}

/** `vendor/<catalog id>` when the catalog knows the model, else `vendor/<model as written>`. */
export function priceKey(vendor: VendorId, model: string): string {
  return `${vendor}/${lookupModel(vendor, model)?.id ?? model}`;
}

/**
 * The rates computeCost uses. Cache rates left out keep the catalog's ratio to its input price (a
 * discount on input usually carries over to cached input); for a model the catalog does not know
 * they are the input rate, which never under-bills.
 */
export function overrideRates(vendor: VendorId, model: string, o: PriceOverride): ModelPrice {
  const listed = lookupModel(vendor, model)?.price;
  const ratio = (part: number) => (listed && listed.input > 0 ? part / listed.input : 1);
  return {
    input: o.input,
    output: o.output,
    cacheRead: o.cache_read ?? round(o.input * ratio(listed?.cacheRead ?? listed?.input ?? 0)),
    cacheWrite: o.cache_write ?? round(o.input * ratio(listed?.cacheWrite ?? listed?.input ?? 0)),
  };
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

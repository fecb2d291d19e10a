// Cost of one upstream call from its reported usage and the catalog's list prices.
import type { Usage } from '../../ir/types.ts';
import type { VendorId } from '../types.ts';
import { lookupModel } from './index.ts';
import type { ModelInfo, ModelPrice } from './types.ts';

export interface CostBreakdown {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface CostResult {
  costUsd: number;
  /** False when the model is not in the catalog: cost is 0 and `warning` says why (log it). */
  known: boolean;
  breakdown: CostBreakdown;
  warning?: string;
}

export interface CostOptions {
  /** Batch APIs bill every token at half the list price. */
  batch?: boolean;
  /**
   * The organization's own rates for the model (price-override.ts): they replace the catalog's, its
   * long-context tier included, and price a model the catalog does not know.
   */
  price?: ModelPrice;
}

/**
 * An organization's own rates for a model (LiveState.priceOverride, built in one place from the
 * stored overrides); undefined for list prices. Whatever prices a call, before or after, takes one.
 */
export type PriceLookup = (orgId: string, vendor: VendorId, model: string) => ModelPrice | undefined;

const PER_TOKEN = 1 / 1_000_000;

/** Rounds to 1e-9 USD: finer than any vendor bills, and keeps float noise out of stored sums. */
function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

function tokens(n: number | undefined): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * USD cost of one call.
 *
 * `usage.input` must EXCLUDE cached tokens (Anthropic semantics: `input_tokens` does not count
 * cache reads or writes). Adapters for usage that includes them (OpenAI `prompt_tokens` with
 * `prompt_tokens_details.cached_tokens`, Gemini `promptTokenCount` with `cachedContentTokenCount`)
 * subtract the cached part before calling, otherwise cached tokens are billed twice.
 *
 * Unknown models cost 0 with `known: false` and a `warning`; this never throws.
 */
/** The rates that apply: the org's override, else the catalog's (long-context tier past its threshold). */
function ratesOf(
  info: ModelInfo | undefined,
  override: ModelPrice | undefined,
  prompt: number,
): ModelPrice | undefined {
  if (override) return override;
  if (!info) return undefined;
  const lc = info.longContext;
  return lc && prompt > lc.threshold ? lc : info.price;
}

export function computeCost(vendor: VendorId, model: string, usage: Usage, options?: CostOptions): CostResult {
  const input = tokens(usage.input);
  const output = tokens(usage.output);
  const cacheRead = tokens(usage.cacheRead);
  const cacheWrite = tokens(usage.cacheWrite);
  const rates = ratesOf(lookupModel(vendor, model), options?.price, input + cacheRead + cacheWrite);
  if (!rates) {
    return {
      costUsd: 0,
      known: false,
      breakdown: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      warning: `no catalog price for ${vendor}/${model}; cost recorded as 0`,
    };
  }
  const scale = (options?.batch ? 0.5 : 1) * PER_TOKEN;
  const parts = {
    input: input * rates.input * scale,
    output: output * rates.output * scale,
    cacheRead: cacheRead * rates.cacheRead * scale,
    cacheWrite: cacheWrite * rates.cacheWrite * scale,
  };
  return {
    costUsd: round(parts.input + parts.output + parts.cacheRead + parts.cacheWrite),
    known: true,
    breakdown: {
      input: round(parts.input),
      output: round(parts.output),
      cacheRead: round(parts.cacheRead),
      cacheWrite: round(parts.cacheWrite),
    },
  };
}

/** `X-Svc-Cost-Usd` value: plain decimal, never exponent notation (`1.23e-7`), at most 9 decimals. */
export function formatCostHeader(cost: number): string {
  if (!Number.isFinite(cost) || cost <= 0) return '0';
  const fixed = cost.toFixed(9).replace(/0+$/, '').replace(/\.$/, '');
  return fixed === '' || fixed === '0' ? '0' : fixed;
}

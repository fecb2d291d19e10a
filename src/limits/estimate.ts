// What a call may cost, decided before it runs: its input (a third of the prompt's UTF-8 bytes, which
// is above the real token count for most text) plus its output allowance (max_tokens, else the
// model's maximum output, else DEFAULT_OUTPUT_CAP) at catalog prices. A max_tokens above the
// catalog's maximum output for the model is counted at that maximum: the model cannot write more,
// and reserving what was asked would let one call hold a whole shared budget. An `@slug` call is priced at
// its dearest candidate, or at all of them together when the strategy calls several per request
// (ensemble, cascade). An organization's price override for a candidate replaces the list prices, as
// it does in the cost of the call. Budgets reserve this and TPM charges it at admission; both are
// corrected to the actual figures when the call ends.
import type { ChatRequest } from '../ir/types.ts';
import type { ProxyCall } from '../pipeline/types.ts';
import type { PriceLookup } from '../providers/catalog/cost.ts';
import { lookupModel, type ModelPrice } from '../providers/catalog/index.ts';
import { resolveDirectModel } from '../providers/registry.ts';
import type { ActiveConfig, CandidateRef } from '../routing/types.ts';
import { quickRequestTokens } from '../tokens/estimate.ts';

/** Output allowance for a model the catalog does not know, when the request sets no max_tokens. */
export const DEFAULT_OUTPUT_CAP = 4096;

export interface CallEstimate {
  /** Input plus output allowance: what TPM charges. */
  tokens: number;
  /** What budgets reserve; 0 when no candidate has a known price. */
  costUsd: number;
}

const FREE: CallEstimate = { tokens: 0, costUsd: 0 };

export type ConfigLookup = (orgId: string, slug: string) => ActiveConfig | undefined;

/** A candidate's list prices per token and its output cap, looked up once per model. */
interface Pricing {
  input: number;
  output: number;
  maxOutput: number;
  /** Whether maxOutput is the catalog's figure for the model (then it caps max_tokens too). */
  known: boolean;
}

const NO_PRICE: Pricing = { input: 0, output: 0, maxOutput: DEFAULT_OUTPUT_CAP, known: false };
const pricing = new Map<string, Pricing>();

function pricingOf(ref: CandidateRef): Pricing {
  const key = `${ref.vendor}/${ref.model}`;
  let p = pricing.get(key);
  if (p === undefined) {
    const info = lookupModel(ref.vendor, ref.model);
    // A long prompt may be billed at the long-context rate: reserve at the higher of the two.
    const long = info?.longContext;
    p = info
      ? {
          input: Math.max(info.price.input, long?.input ?? 0) / 1e6,
          output: Math.max(info.price.output, long?.output ?? 0) / 1e6,
          maxOutput: info.maxOutput || DEFAULT_OUTPUT_CAP,
          known: info.maxOutput > 0,
        }
      : NO_PRICE;
    // Model names come from callers: keep the table bounded.
    if (pricing.size < 10_000) pricing.set(key, p);
  }
  return p;
}

interface Candidates {
  refs: readonly Pick<CandidateRef, 'vendor' | 'model'>[];
  prices: readonly Pricing[];
  /** Every candidate runs (ensemble, cascade): the costs add up. */
  all: boolean;
}

const directCandidates = new Map<string, Candidates>();
const configCandidates = new WeakMap<ActiveConfig, Candidates>();
const NONE: Candidates = { refs: [], prices: [], all: false };

function candidates(call: Estimated, config: ConfigLookup): Candidates {
  const model = call.modelRequested;
  if (model.startsWith('@')) {
    const cfg = config(call.principal.orgId, model.slice(1));
    if (!cfg) return NONE;
    let c = configCandidates.get(cfg);
    if (!c) {
      const refs = cfg.compiled.refs;
      c = { refs, prices: refs.map(pricingOf), all: cfg.strategy === 'ensemble' || cfg.strategy === 'cascade' };
      configCandidates.set(cfg, c);
    }
    return c;
  }
  let c = directCandidates.get(model);
  if (!c) {
    const direct = resolveDirectModel(model);
    c = direct ? { refs: [direct], prices: [pricingOf({ ...direct })], all: false } : NONE;
    if (directCandidates.size < 10_000) directCandidates.set(model, c);
  }
  return c;
}

function embeddingTokens(body: unknown): number {
  const input = (body as { input?: unknown } | null)?.input;
  const texts = Array.isArray(input) ? input : [input];
  let n = 0;
  for (const t of texts) {
    if (typeof t === 'string') n += Math.ceil(Buffer.byteLength(t, 'utf8') / 3);
    else if (Array.isArray(t)) n += t.length; // already tokens
  }
  return n;
}

/** What an estimate reads of a call: a proxy call, or a batch item not yet run. */
export type Estimated = Pick<ProxyCall, 'kind' | 'body' | 'modelRequested'> & {
  principal: Pick<ProxyCall['principal'], 'orgId'>;
  chat?: { ir: ChatRequest };
};

/** Pricing with the org's override in place of the list prices (the output cap stays the catalog's). */
function overridden(p: Pricing, o: ModelPrice | undefined): Pricing {
  return o === undefined ? p : { ...p, input: o.input / 1e6, output: o.output / 1e6 };
}

export function estimateCall(call: Estimated, config: ConfigLookup, overrides?: PriceLookup): CallEstimate {
  if (call.kind === 'count_tokens') return FREE;
  const { refs, prices, all } = candidates(call, config);
  const orgId = call.principal.orgId;
  const ir: ChatRequest | undefined = call.chat?.ir;
  const input = ir ? quickRequestTokens(ir) : embeddingTokens(call.body);
  const maxTokens = ir?.params.maxTokens;
  let tokens = input;
  let costUsd = 0;
  for (let i = 0; i < prices.length; i++) {
    const ref = refs[i];
    const listed = prices[i] ?? NO_PRICE;
    const p = overrides && ref ? overridden(listed, overrides(orgId, ref.vendor, ref.model)) : listed;
    const asked = maxTokens ?? p.maxOutput;
    const output = ir ? (p.known ? Math.min(asked, p.maxOutput) : asked) : 0;
    tokens = Math.max(tokens, input + output);
    const cost = input * p.input + output * p.output;
    costUsd = all ? costUsd + cost : Math.max(costUsd, cost);
  }
  return { tokens, costUsd: Math.round(costUsd * 1e9) / 1e9 };
}

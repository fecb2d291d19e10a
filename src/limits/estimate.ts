// What a call may cost, decided before it runs: counted input tokens plus its output allowance
// (max_tokens, else the model's maximum output, else DEFAULT_OUTPUT_CAP) at catalog prices. An
// `@slug` call is priced at its dearest candidate, or at all of them together when the strategy
// calls several per request (ensemble, cascade). The estimate is what budgets reserve and what
// TPM charges at admission; both are corrected to the actual figures when the call ends.
import type { ChatRequest } from '../ir/types.ts';
import type { ProxyCall } from '../pipeline/types.ts';
import { computeCost } from '../providers/catalog/cost.ts';
import { lookupModel } from '../providers/catalog/index.ts';
import { resolveDirectModel } from '../providers/registry.ts';
import type { ActiveConfig, CandidateRef } from '../routing/types.ts';
import { estimateRequestTokens } from '../tokens/estimate.ts';

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

function candidates(call: ProxyCall, config: ConfigLookup): { refs: readonly CandidateRef[]; all: boolean } {
  const model = call.modelRequested;
  if (model.startsWith('@')) {
    const cfg = config(call.principal.orgId, model.slice(1));
    if (!cfg) return { refs: [], all: false };
    return { refs: cfg.compiled.refs, all: cfg.strategy === 'ensemble' || cfg.strategy === 'cascade' };
  }
  const direct = resolveDirectModel(model);
  return {
    refs: direct ? [{ vendor: direct.vendor, vendorAsSent: direct.vendorAsSent, model: direct.model }] : [],
    all: false,
  };
}

function embeddingTokens(body: unknown): number {
  const input = (body as { input?: unknown } | null)?.input;
  const texts = Array.isArray(input) ? input : [input];
  let chars = 0;
  for (const t of texts) {
    if (typeof t === 'string') chars += t.length;
    else if (Array.isArray(t)) chars += t.length * 4; // already tokens
  }
  return Math.ceil(chars / 4);
}

function outputAllowance(ir: ChatRequest, ref: CandidateRef): number {
  return ir.params.maxTokens ?? (lookupModel(ref.vendor, ref.model)?.maxOutput || DEFAULT_OUTPUT_CAP);
}

export function estimateCall(call: ProxyCall, config: ConfigLookup): CallEstimate {
  if (call.kind === 'count_tokens') return FREE;
  const { refs, all } = candidates(call, config);
  const ir = call.chat?.ir;
  const input = ir ? estimateRequestTokens(ir) : embeddingTokens(call.body);
  let tokens = input;
  let costUsd = 0;
  for (const ref of refs) {
    const output = ir ? outputAllowance(ir, ref) : 0;
    tokens = Math.max(tokens, input + output);
    const cost = computeCost(ref.vendor, ref.model, { input, output }).costUsd;
    costUsd = all ? costUsd + cost : Math.max(costUsd, cost);
  }
  return { tokens, costUsd };
}

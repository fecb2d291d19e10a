// Capability screening shared by every strategy: a candidate that cannot serve the request (prompt too
// long, no tools, no images, no JSON schema) or that the circuit breaker is cooling down is kept in the
// trace with the reason and left out of the plan.
import type { ModelInfo } from '../providers/catalog/types.ts';
import type { CandidateRef, CandidateTrace, PlanContext, RequestFacts } from './types.ts';

export function needsTools(facts: RequestFacts): boolean {
  return facts.ir.tools.length > 0;
}

export function needsImages(facts: RequestFacts): boolean {
  for (const m of facts.ir.messages) {
    for (const b of m.content) {
      if (b.type === 'image') return true;
      if (b.type === 'tool_result' && b.content.some((c) => c.type === 'image')) return true;
    }
  }
  return false;
}

/** Undefined when the candidate can serve the request, else the reason it cannot. */
export function capabilityProblem(info: ModelInfo | undefined, facts: RequestFacts): string | undefined {
  // Models the catalog does not know (self-hosted, new releases, test doubles) are given the benefit of the doubt.
  if (!info) return undefined;
  if (facts.kind === 'embedding') return embeddingProblem(info, facts.dimensions);
  if (info.kind !== 'chat') return 'not_a_chat_model';
  if (info.contextWindow > 0 && facts.estimatedTokens > info.contextWindow) return 'context_window';
  if (needsTools(facts) && !info.tools) return 'no_tools';
  if (needsImages(facts) && !info.images) return 'no_images';
  if (facts.ir.params.responseFormat?.type === 'json_schema' && !info.jsonSchema) return 'no_json_schema';
  return undefined;
}

/** An embedding model can produce a pinned length when it shortens on request or is that size natively. */
function embeddingProblem(info: ModelInfo, dims: number | undefined): string | undefined {
  if (info.kind !== 'embedding') return 'not_an_embedding_model';
  if (dims === undefined) return undefined;
  if (info.allowedDimensions && !info.allowedDimensions.includes(dims)) return 'dimensions';
  if (info.supportsDimensions)
    return info.dimensions !== undefined && dims > info.dimensions ? 'dimensions' : undefined;
  return info.dimensions === dims ? undefined : 'dimensions';
}

/** Output tokens assumed when pricing a call whose answer length is unknown. */
function expectedOutputTokens(facts: RequestFacts): number {
  return Math.min(facts.ir.params.maxTokens ?? 256, 1024);
}

/** Estimated USD for this request on this candidate; undefined when no price is known. */
export function estimateCost(ref: CandidateRef, ctx: PlanContext): number | undefined {
  const info = ctx.lookupModel(ref.vendor, ref.model);
  const price = ref.price ?? info?.price;
  if (!price) return undefined;
  const usd = (ctx.req.estimatedTokens * price.input + expectedOutputTokens(ctx.req) * price.output) / 1e6;
  return Math.round(usd * 1e9) / 1e9;
}

export interface Screened {
  usable: CandidateRef[];
  traces: Map<CandidateRef, CandidateTrace>;
}

export function traceOf(ref: CandidateRef, eligible: boolean, reason: string, score?: number): CandidateTrace {
  const t: CandidateTrace = { model: ref.model, provider: ref.vendorAsSent, eligible, reason };
  if (score !== undefined) t.score = score;
  return t;
}

/**
 * Splits candidates into usable ones (in the given order) and traces for all. When every capable
 * candidate is cooling down, they are used anyway: a cooldown is advice, not a reason to fail a call.
 */
export function screen(refs: CandidateRef[], ctx: PlanContext): Screened {
  const traces = new Map<CandidateRef, CandidateTrace>();
  const usable: CandidateRef[] = [];
  const cooling: CandidateRef[] = [];
  for (const ref of refs) {
    const problem = capabilityProblem(ctx.lookupModel(ref.vendor, ref.model), ctx.req);
    if (problem) {
      traces.set(ref, traceOf(ref, false, problem));
    } else if (ctx.hasCredential && !ctx.hasCredential(ref)) {
      traces.set(ref, traceOf(ref, false, 'no_credential'));
    } else if (ctx.health.coolingDown(ref, ctx.now)) {
      traces.set(ref, traceOf(ref, false, 'cooldown'));
      cooling.push(ref);
    } else {
      traces.set(ref, traceOf(ref, true, 'eligible'));
      usable.push(ref);
    }
  }
  if (usable.length === 0 && cooling.length > 0) {
    for (const ref of cooling) traces.set(ref, traceOf(ref, true, 'cooldown_all_cooling'));
    return { usable: cooling, traces };
  }
  return { usable, traces };
}

/** Marks the planned order in the trace: the first attempt `selected`, the rest with `rest`. */
export function markPlan(s: Screened, order: CandidateRef[], rest: string): void {
  order.forEach((ref, i) => {
    const t = s.traces.get(ref);
    if (t?.eligible && t.reason === 'eligible') t.reason = i === 0 ? 'selected' : rest;
  });
}

export function tracesInOrder(refs: CandidateRef[], s: Screened): CandidateTrace[] {
  return refs.map((r) => s.traces.get(r) ?? traceOf(r, false, 'not_considered'));
}

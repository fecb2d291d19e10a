// The plan shape most strategies share: screen the candidates, put them in the strategy's order,
// try them one after another.
import { markPlan, screen, tracesInOrder } from '../eligibility.ts';
import type { CandidateRef, Decision, PlanContext, RetryRule } from '../types.ts';

export interface SequenceOptions {
  /** Orders usable candidates (best first) and may attach a score to each. */
  order?: (usable: CandidateRef[], ctx: PlanContext) => { order: CandidateRef[]; scores?: Map<CandidateRef, number> };
  matchedRule?: string | null;
  variantBucket?: string | null;
  /** Trace reason for the usable candidates after the first. */
  restReason?: string;
}

export function sequentialDecision(
  refs: CandidateRef[],
  retry: RetryRule,
  ctx: PlanContext,
  opts: SequenceOptions = {},
): Decision {
  const s = screen(refs, ctx);
  const ordered = opts.order ? opts.order(s.usable, ctx) : { order: s.usable };
  if (ordered.scores) {
    for (const [ref, score] of ordered.scores) {
      const t = s.traces.get(ref);
      if (t) t.score = score;
    }
  }
  markPlan(s, ordered.order, opts.restReason ?? 'fallback');
  return {
    mode: 'sequential',
    attempts: ordered.order.map((ref) => ({ ref, timeoutMs: ref.timeoutMs })),
    candidates: tracesInOrder(refs, s),
    matchedRule: opts.matchedRule ?? null,
    variantBucket: opts.variantBucket ?? null,
    retry,
  };
}

/** The candidates' scores for ranking and the trace; a candidate `score` cannot judge gets none. */
export function scoresOf(
  usable: readonly CandidateRef[],
  score: (ref: CandidateRef) => number | undefined,
): Map<CandidateRef, number> {
  const scores = new Map<CandidateRef, number>();
  for (const ref of usable) {
    const s = score(ref);
    if (s !== undefined) scores.set(ref, s);
  }
  return scores;
}

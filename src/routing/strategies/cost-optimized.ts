// `cost_optimized`: the cheapest eligible candidate for this request, priced from the catalog (or a
// candidate's own `price`) and the request's estimated tokens. The others follow as fallbacks in price
// order; candidates without any known price go last.
import { modelsOrAttempts, parseRetryOn } from '../config-parse.ts';
import { estimateCost } from '../eligibility.ts';
import type { CandidateRef, Strategy } from '../types.ts';
import { scoresOf, sequentialDecision } from './sequence.ts';

export const costOptimizedStrategy: Strategy = {
  name: 'cost_optimized',
  compile(config) {
    const refs = modelsOrAttempts(config);
    const retry = parseRetryOn(config.retry_on ?? config.retryOn);
    return {
      refs,
      decide: (ctx) =>
        sequentialDecision(refs, retry, ctx, {
          order(usable) {
            const scores = scoresOf(usable, (ref) => estimateCost(ref, ctx));
            const rank = (r: CandidateRef): number => scores.get(r) ?? Number.POSITIVE_INFINITY;
            // Array.prototype.sort is stable, so equal prices keep the config's order.
            return { order: [...usable].sort((a, b) => rank(a) - rank(b)), scores };
          },
        }),
    };
  },
};

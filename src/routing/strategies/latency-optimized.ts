// `latency_optimized`: the candidate with the lowest recent median latency from live traffic. Unmeasured
// candidates go first so that every one gets measured, and a small exploration share (default 5%)
// sends a call to another candidate so that one that has recovered is noticed.

import { modelsOrAttempts, parseRetryOn } from '../config-parse.ts';
import type { CandidateRef, Strategy } from '../types.ts';
import { ConfigError } from '../types.ts';
import { scoresOf, sequentialDecision } from './sequence.ts';

function explorationShare(v: unknown): number {
  if (v === undefined) return 0.05;
  if (typeof v !== 'number' || v < 0 || v > 1)
    throw new ConfigError('config.exploration', 'expected a number in [0, 1]');
  return v;
}

export const latencyOptimizedStrategy: Strategy = {
  name: 'latency_optimized',
  compile(config) {
    const refs = modelsOrAttempts(config);
    const retry = parseRetryOn(config.retry_on ?? config.retryOn);
    const exploration = explorationShare(config.exploration);
    return {
      refs,
      decide: (ctx) =>
        sequentialDecision(refs, retry, ctx, {
          order(usable) {
            const scores = scoresOf(usable, (ref) => {
              const p50 = ctx.health.p50(ref, ctx.now);
              return p50 === undefined ? undefined : Math.round(p50 * 100) / 100;
            });
            const rank = (r: CandidateRef): number => scores.get(r) ?? -1;
            const order = [...usable].sort((a, b) => rank(a) - rank(b));
            if (order.length > 1 && ctx.random() < exploration) {
              const pick = 1 + Math.floor(ctx.random() * (order.length - 1));
              const [explored] = order.splice(pick, 1);
              order.unshift(explored);
            }
            return { order, scores };
          },
        }),
    };
  },
};

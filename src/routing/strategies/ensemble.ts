// `ensemble`: every eligible candidate is called in parallel. `select: "fastest"` answers with the first
// success and cancels the rest; `select: "judge"` waits for all and asks a judge model to pick one.
import { modelsOrAttempts, NO_RETRY, parseCandidate } from '../config-parse.ts';
import { markPlan, screen, tracesInOrder } from '../eligibility.ts';
import { ConfigError, type Strategy } from '../types.ts';

export const ensembleStrategy: Strategy = {
  name: 'ensemble',
  compile(config) {
    const refs = modelsOrAttempts(config, 2);
    const select = config.select ?? 'fastest';
    if (select !== 'fastest' && select !== 'judge')
      throw new ConfigError('config.select', 'expected "fastest" or "judge"');
    const judgeRaw = config.judge ?? config.judge_model;
    if (select === 'judge' && judgeRaw === undefined) {
      throw new ConfigError('config.judge', 'required when select is "judge": the model that picks the best answer');
    }
    const judge = judgeRaw === undefined ? undefined : parseCandidate(judgeRaw, 'config.judge');
    return {
      refs: judge ? [...refs, judge] : refs,
      decide(ctx) {
        const s = screen(refs, ctx);
        markPlan(s, s.usable, 'parallel');
        const t = s.traces.get(s.usable[0]);
        if (t?.reason === 'selected') t.reason = 'parallel';
        return {
          mode: select === 'judge' ? 'parallel_judge' : 'parallel_fastest',
          attempts: s.usable.map((ref) => ({ ref, timeoutMs: ref.timeoutMs })),
          candidates: tracesInOrder(refs, s),
          matchedRule: null,
          variantBucket: null,
          retry: NO_RETRY,
          judge,
        };
      },
    };
  },
};

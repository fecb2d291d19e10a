// `cascade`: cheapest step first; the answer is returned when it passes the step's acceptance check,
// otherwise the next step is tried. Checks: cut by the token limit, empty text, invalid JSON when JSON
// was asked, and optionally a judge score below a threshold. The last step's answer is always returned.
import { isRecord, parseCandidate, parseRetryOn } from '../config-parse.ts';
import { markPlan, screen, tracesInOrder } from '../eligibility.ts';
import { type AcceptanceCheck, type CandidateRef, ConfigError, type Strategy } from '../types.ts';

interface Step {
  ref: CandidateRef;
  accept: AcceptanceCheck;
}

function parseAccept(v: unknown, field: string, base?: AcceptanceCheck): AcceptanceCheck {
  const a: AcceptanceCheck = base
    ? { ...base }
    : { rejectLength: true, rejectEmpty: true, rejectInvalidJson: true, judge: undefined };
  if (v === undefined) return a;
  if (!isRecord(v)) throw new ConfigError(field, 'expected an object');
  const flag = (key: string, cur: boolean): boolean => {
    const x = v[key];
    if (x === undefined) return cur;
    if (typeof x !== 'boolean') throw new ConfigError(`${field}.${key}`, 'expected a boolean');
    return x;
  };
  a.rejectLength = flag('reject_length', a.rejectLength);
  a.rejectEmpty = flag('reject_empty', a.rejectEmpty);
  a.rejectInvalidJson = flag('reject_invalid_json', a.rejectInvalidJson);
  if (v.judge !== undefined) {
    const threshold = v.min_score ?? v.threshold;
    if (typeof threshold !== 'number')
      throw new ConfigError(`${field}.min_score`, 'required with judge: a number 0..10');
    a.judge = { ref: parseCandidate(v.judge, `${field}.judge`), threshold };
  }
  return a;
}

function parseSteps(config: Record<string, unknown>): Step[] {
  const base = parseAccept(config.accept, 'config.accept');
  const list = config.steps ?? config.models ?? config.attempts;
  const field =
    config.steps !== undefined ? 'config.steps' : config.models !== undefined ? 'config.models' : 'config.attempts';
  if (!Array.isArray(list) || list.length < 2) throw new ConfigError('config.steps', 'expected at least two steps');
  return list.map((raw, i) => ({
    ref: parseCandidate(raw, `${field}[${i}]`),
    accept: parseAccept(isRecord(raw) ? raw.accept : undefined, `${field}[${i}].accept`, base),
  }));
}

export const cascadeStrategy: Strategy = {
  name: 'cascade',
  compile(config) {
    const steps = parseSteps(config);
    const refs = steps.map((s) => s.ref);
    const judges = steps.flatMap((s) => (s.accept.judge ? [s.accept.judge.ref] : []));
    const retry = parseRetryOn(config.retry_on ?? config.retryOn);
    return {
      refs: [...refs, ...judges],
      decide(ctx) {
        const s = screen(refs, ctx);
        markPlan(s, s.usable, 'escalation');
        const attempts = steps
          .filter((st) => s.usable.includes(st.ref))
          .map((st) => ({ ref: st.ref, timeoutMs: st.ref.timeoutMs, accept: st.accept }));
        return {
          mode: 'cascade',
          attempts,
          candidates: tracesInOrder(refs, s),
          matchedRule: null,
          variantBucket: null,
          retry,
        };
      },
    };
  },
};

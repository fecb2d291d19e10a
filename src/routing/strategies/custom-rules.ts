// `custom_rules`: ordered rules with conditions on the request; the first matching rule's target is
// used, else the `default` target. A target is a model or a list of models (tried as fallbacks).
import { isRecord, parseCandidate, parseCandidateList, parseRetryOn } from '../config-parse.ts';
import { type CandidateRef, ConfigError, type Strategy } from '../types.ts';
import { type Condition, parseConditions } from './rule-match.ts';
import { sequentialDecision } from './sequence.ts';

interface Rule {
  name: string;
  when: Condition[];
  refs: CandidateRef[];
}

function parseTarget(v: unknown, field: string): CandidateRef[] {
  return Array.isArray(v) ? parseCandidateList(v, field) : [parseCandidate(v, field)];
}

function parseRule(v: unknown, i: number): Rule {
  const f = `config.rules[${i}]`;
  if (!isRecord(v)) throw new ConfigError(f, 'expected {name, when, target}');
  const target = v.target ?? v.models ?? v.model;
  if (target === undefined) throw new ConfigError(`${f}.target`, 'required: a model or a list of models');
  return {
    name: typeof v.name === 'string' && v.name !== '' ? v.name : `rule_${i + 1}`,
    when: parseConditions(v.when ?? v.conditions, `${f}.when`),
    refs: parseTarget(target, `${f}.target`),
  };
}

export const customRulesStrategy: Strategy = {
  name: 'custom_rules',
  compile(config) {
    if (!Array.isArray(config.rules)) throw new ConfigError('config.rules', 'expected an array of rules');
    const rules = config.rules.map(parseRule);
    if (config.default === undefined)
      throw new ConfigError('config.default', 'required: the target when no rule matches');
    const fallbackRefs = parseTarget(config.default, 'config.default');
    const retry = parseRetryOn(config.retry_on ?? config.retryOn);
    return {
      refs: [...rules.flatMap((r) => r.refs), ...fallbackRefs],
      decide(ctx) {
        const rule = rules.find((r) => r.when.every((c) => c(ctx.req)));
        return sequentialDecision(rule ? rule.refs : fallbackRefs, retry, ctx, {
          matchedRule: rule ? rule.name : 'default',
        });
      },
    };
  },
};

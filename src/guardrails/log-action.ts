// The one word a call's guardrail verdicts leave in its log row (the `guardrail_action` column and
// filter): the strongest action an enforcing policy took, or, when only shadow policies had a
// verdict, the strongest they would have taken, prefixed so the two are never mixed up.
import type { GuardrailVerdict } from './engine.ts';
import { GUARDRAIL_ACTIONS, type GuardrailAction } from './policy.ts';

export const GUARDRAIL_LOG_ACTIONS = [...GUARDRAIL_ACTIONS, ...GUARDRAIL_ACTIONS.map((a) => `shadow_${a}` as const)];
export type GuardrailLogAction = (typeof GUARDRAIL_LOG_ACTIONS)[number];

/** block > mask > flag: the order of GUARDRAIL_ACTIONS. */
const rank = (a: GuardrailAction): number => GUARDRAIL_ACTIONS.length - GUARDRAIL_ACTIONS.indexOf(a);

/**
 * A verdict counts with the action it recorded, applied or not (a mask that came too late for text
 * already streamed is still the policy's mask); null when there is no verdict.
 */
export function logAction(verdicts: readonly GuardrailVerdict[]): GuardrailLogAction | null {
  let enforced: GuardrailAction | null = null;
  let shadow: GuardrailAction | null = null;
  for (const v of verdicts) {
    if (v.mode === 'enforce') {
      if (enforced === null || rank(v.action) > rank(enforced)) enforced = v.action;
    } else if (shadow === null || rank(v.action) > rank(shadow)) shadow = v.action;
  }
  if (enforced !== null) return enforced;
  return shadow === null ? null : `shadow_${shadow}`;
}

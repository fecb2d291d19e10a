// `max_tokens` is mandatory on this wire. Default when the caller gave none (wire-formats.md 3.7):
// 4096, which every Claude model accepts; with thinking on, the budget comes on top, capped at the
// model's known output limit.
export const DEFAULT_MAX_TOKENS = 4096;
/** Anthropic's floor for `thinking.budget_tokens`. */
export const MIN_THINKING_BUDGET = 1024;

// First match wins; matched against the id with any bedrock region/vendor prefix removed.
const KNOWN_OUTPUT_LIMITS: Array<[RegExp, number]> = [
  [/^claude-3-(haiku|opus|sonnet)/, 4096],
  [/^claude-3-5-(sonnet|haiku)/, 8192],
  [/^claude-opus-4-5/, 64000],
  [/^claude-opus-4/, 32000],
  [/^claude-(3-7-sonnet|sonnet-4|haiku-4)/, 64000],
];

export function modelOutputLimit(model: string): number | undefined {
  const bare = model.replace(/^(.*\.)?anthropic\./, '');
  for (const [re, limit] of KNOWN_OUTPUT_LIMITS) if (re.test(bare)) return limit;
  return undefined;
}

export interface TokenPlan {
  maxTokens: number;
  /** Undefined when thinking is off or cannot fit under the caller's max_tokens. */
  thinkingBudget?: number;
}

export function planTokens(
  model: string,
  maxTokens: number | undefined,
  thinkingBudget: number | undefined,
): TokenPlan {
  const limit = modelOutputLimit(model);
  if (thinkingBudget === undefined) {
    return { maxTokens: maxTokens ?? Math.min(DEFAULT_MAX_TOKENS, limit ?? DEFAULT_MAX_TOKENS) };
  }
  if (maxTokens === undefined) {
    const wanted = thinkingBudget + DEFAULT_MAX_TOKENS;
    const max = limit === undefined ? wanted : Math.min(wanted, limit);
    return fitBudget(max, thinkingBudget);
  }
  return fitBudget(maxTokens, thinkingBudget);
}

/** The upstream requires budget_tokens < max_tokens; shrink the budget, or drop thinking if it cannot fit. */
function fitBudget(maxTokens: number, budget: number): TokenPlan {
  const fitted = Math.min(budget, maxTokens - 1);
  return fitted >= MIN_THINKING_BUDGET ? { maxTokens, thinkingBudget: fitted } : { maxTokens };
}

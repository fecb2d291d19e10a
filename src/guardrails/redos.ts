// Refuses user regexes that can backtrack catastrophically, before they are stored. Two maintained
// analyzers: recheck decides from the pattern's automaton (exponential and polynomial blow-ups,
// with the input that triggers them), safe-regex2 flags nested quantifiers by star height. Only the
// management side awaits this (create/update, and so configuration files); the engine's own
// validation of stored rows stays synchronous and cheap. At run time each regex also sees bounded
// windows of text only (compile.ts), which caps what a pattern that slipped through can cost.
import safeRegex from 'safe-regex2';
import type { GuardrailFieldError, GuardrailPolicyInput } from './policy.ts';

type Recheck = typeof import('recheck');

/** Time one pattern may take to analyse; past it, only the star-height rule decides. */
const PATTERN_BUDGET_MS = 1500;
/** Time a whole policy's patterns may take (up to 400 of them queue for one analyzer). */
const POLICY_BUDGET_MS = 10_000;
/**
 * A quadratic search is what any unanchored `foo.*bar` costs, and the run-time window bounds it;
 * cubic and worse on a window of a few thousand characters is seconds of CPU per call.
 */
const MAX_POLYNOMIAL_DEGREE = 2;

let recheck: Promise<Recheck> | undefined;

/** Loaded on first use: the analyzer is a few megabytes of JavaScript that calls never need. */
function analyzer(): Promise<Recheck> {
  recheck ??= import('recheck');
  return recheck;
}

/** Why a pattern is refused, or null when it is accepted. */
export async function regexRisk(pattern: string, flags: string, signal?: AbortSignal): Promise<string | null> {
  const r = await analyzer()
    .then(({ check }) => check(pattern, `g${flags}`, { timeout: PATTERN_BUDGET_MS, ...(signal ? { signal } : {}) }))
    // An analysis cancelled by the policy's budget, or an analyzer that cannot start, leaves the
    // decision to the star-height rule below (and the run-time window to bound the rest).
    .catch(() => null);
  if (r?.status === 'vulnerable') {
    const c = r.complexity;
    if (c.type === 'exponential') return 'its matching time can grow exponentially with the text';
    if (c.degree > MAX_POLYNOMIAL_DEGREE) return `its matching time can grow as a ${c.summary} of the text`;
  }
  // Nested quantifiers ((x+)+, (.*a){12}): the analyzer may judge a bound it cannot prove, so refuse them anyway.
  if (!safeRegex(pattern))
    return 'it nests quantifiers (a repeated group that itself repeats), which can backtrack catastrophically';
  return null;
}

/**
 * The catastrophic-backtracking problems of a policy's regex checks, one per refused pattern; the
 * message names the pattern so the caller can see which one to rewrite.
 */
export async function regexSafetyProblems(input: GuardrailPolicyInput): Promise<GuardrailFieldError[]> {
  const jobs: Array<Promise<GuardrailFieldError | null>> = [];
  const signal = AbortSignal.timeout(POLICY_BUDGET_MS);
  input.checks.forEach((c, i) => {
    if (c.type !== 'regex') return;
    c.patterns.forEach((p, j) => {
      const field = `checks[${i}].patterns[${j}]`;
      jobs.push(
        regexRisk(p, c.flags ?? '', signal).then((why) =>
          why === null ? null : { field, message: `'${field}' (${JSON.stringify(p)}) is refused: ${why}` },
        ),
      );
    });
  });
  const found = await Promise.all(jobs);
  return found.filter((e): e is GuardrailFieldError => e !== null);
}

// Cascade acceptance checks and retry_on matching: small pure functions over attempt outcomes.

import type { JsonOutcome } from '../ir/outcome.ts';
import type { UpstreamErrorInfo } from '../ir/types.ts';
import type { AcceptanceCheck, RetryRule } from './types.ts';

/** Whether a failed attempt should move a plan on to its next attempt. */
export function shouldRetry(rule: RetryRule, e: UpstreamErrorInfo): boolean {
  if (e.kind === 'timeout') return rule.timeout;
  // Unreachable upstreams have no status of their own; they count as server errors.
  const status = e.kind === 'network' && (e.status < 500 || e.status > 599) ? 502 : e.status;
  if (rule.statuses.has(status)) return true;
  if (status >= 500) return rule.classes.has('5xx');
  if (status >= 400) return rule.classes.has('4xx');
  return false;
}

/** The reason a cheap answer is not good enough, or undefined when it passes the local checks. */
export function localRejection(out: JsonOutcome, accept: AcceptanceCheck, wantsJson: boolean): string | undefined {
  if (accept.rejectLength && out.stopReason === 'max_tokens') return 'finish_reason_length';
  const hasToolCall = out.ir?.content.some((b) => b.type === 'tool_use') ?? false;
  if (accept.rejectEmpty && out.text.trim() === '' && !hasToolCall) return 'empty_text';
  if (accept.rejectInvalidJson && wantsJson && !hasToolCall) {
    try {
      JSON.parse(out.text);
    } catch {
      return 'invalid_json';
    }
  }
  return undefined;
}

/** Reads a 0..10 score from a judge's answer (the first number in it). */
export function parseScore(text: string): number | undefined {
  const m = /-?\d+(?:\.\d+)?/.exec(text);
  return m ? Number(m[0]) : undefined;
}

/** Reads the 1-based index a judge picked among n answers; undefined when it named none. */
export function parsePick(text: string, n: number): number | undefined {
  const m = /\d+/.exec(text);
  if (!m) return undefined;
  const i = Number(m[0]) - 1;
  return i >= 0 && i < n ? i : undefined;
}

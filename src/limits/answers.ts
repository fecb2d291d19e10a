// How limits show in answers: the x-ratelimit-* headers (OpenAI's names) on every call a rate limit
// applies to, and the 429 / 402 refusals (503 while the shared counters are out of reach and the
// gateway is set to refuse then) in the called family's error shape.
import { GatewayError } from '../errors/gateway-error.ts';
import type { RateState, Refusal } from '../ports/counters.ts';
import { memberOfKey } from './checks.ts';

/** OpenAI's duration style: `250ms`, `6s`, `1.5s`, `6m0s`. */
export function formatReset(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole < 1000) return `${whole}ms`;
  if (whole < 60_000) return `${Number((whole / 1000).toFixed(3))}s`;
  const minutes = Math.floor(whole / 60_000);
  return `${minutes}m${Number(((whole - minutes * 60_000) / 1000).toFixed(3))}s`;
}

function put(headers: Record<string, string>, kind: 'requests' | 'tokens', s: RateState | undefined): void {
  if (!s) return;
  headers[`x-ratelimit-limit-${kind}`] = String(s.limit);
  headers[`x-ratelimit-remaining-${kind}`] = String(s.remaining);
  headers[`x-ratelimit-reset-${kind}`] = formatReset(s.resetMs);
}

export function rateHeaders(a: {
  requests?: RateState | undefined;
  tokens?: RateState | undefined;
}): Record<string, string> | undefined {
  const { requests, tokens } = a;
  if (requests && !tokens) {
    // The usual case (an RPM limit alone), built in one literal.
    return {
      'x-ratelimit-limit-requests': String(requests.limit),
      'x-ratelimit-remaining-requests': String(requests.remaining),
      'x-ratelimit-reset-requests': formatReset(requests.resetMs),
    };
  }
  if (!requests && !tokens) return undefined;
  const headers: Record<string, string> = {};
  put(headers, 'requests', requests);
  put(headers, 'tokens', tokens);
  return headers;
}

const SCOPE_WORDS = { api_key: 'this API key', project: 'this project', end_user: 'this end user' } as const;

export interface BudgetNames {
  /**
   * The budget's name when the caller may see it, else undefined: a project key is not told the
   * name, id or spend of a budget that counts other projects' calls too.
   */
  name(budgetId: string): string | undefined;
}

export function refusalError(r: Refusal, budgets: BudgetNames): GatewayError {
  if (r.kind === 'budget') {
    const name = budgets.name(r.budgetId);
    if (name === undefined) {
      return new GatewayError('budget_exceeded', {
        message: 'A budget of your organization has no room for this call; its administrators can raise it',
      });
    }
    const spent = r.spentUsd.toFixed(6);
    const held = r.reservedUsd > 0 ? ` (plus $${r.reservedUsd.toFixed(6)} held by calls in flight)` : '';
    return new GatewayError('budget_exceeded', {
      message: `Budget '${name}' (${r.budgetId}) has no room for this call: $${spent} of $${r.limitUsd} spent in this period${held}`,
    });
  }
  if (r.kind === 'unavailable') {
    return new GatewayError('limits_unavailable', {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))) },
    });
  }
  const headers = rateHeaders(r) ?? {};
  const who = SCOPE_WORDS[r.scope];
  let message: string;
  if (r.kind === 'concurrency') {
    message = `Too many requests in flight for ${who}: the limit is ${r.limit} at once`;
    headers['retry-after'] = '1';
  } else if (r.retryAfterMs === null) {
    message = `This request needs more tokens than ${who} may use in a minute (${r.limit}); lower max_tokens or the prompt`;
  } else {
    const unit = r.kind === 'rpm' ? 'requests' : 'tokens';
    const wait = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
    headers['retry-after'] = String(wait);
    message = `Rate limit of ${r.limit} ${unit} per minute reached for ${who}; retry after ${wait} s`;
  }
  return new GatewayError('rate_limit_exceeded', { message, headers });
}

/** The refusal as the decision trace shows it (`limits.refused_by`); `budgetName` finds a budget's name. */
export function describeRefusal(r: Refusal, budgetName: (budgetId: string) => string | null): Record<string, unknown> {
  if (r.kind === 'budget') {
    return {
      kind: 'budget',
      budget_id: r.budgetId,
      name: budgetName(r.budgetId),
      member: memberOfKey(r.key) || null,
      limit_usd: r.limitUsd,
      spent_usd: r.spentUsd,
      reserved_usd: r.reservedUsd,
    };
  }
  if (r.kind === 'unavailable') return { kind: r.kind, retry_after_ms: r.retryAfterMs };
  return { kind: r.kind, scope: r.scope, limit: r.limit, retry_after_ms: r.retryAfterMs };
}

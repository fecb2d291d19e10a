// Retry delays: exponential, capped, with jitter so that jobs failing together (an upstream outage)
// do not come back together.
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, capMs: 60 * 60 * 1000 };

/**
 * Delay after failed attempt `attempt` (1-based): base * 2^(attempt-1), capped, then drawn from
 * its upper half ("equal jitter"), which spreads retries yet keeps the delay growing.
 */
export function backoffMs(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random = Math.random): number {
  const exp = policy.baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40);
  const ceiling = Math.min(policy.capMs, exp);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

// Several stored credentials of one vendor share its traffic. Each call picks one at random in
// proportion to its weight among those not cooling down; weight 0 is a standby, used only while
// every weighted credential is cooling down. A credential whose key is refused (401/403), rate
// limited (429) or whose endpoint fails (5xx, connection) loses the call to the next credential at
// once, and three such failures in a row cool it down (30 s, doubling up to 5 min), so a bad key
// added beside a good one costs callers nothing.
import type { CallSignal } from '../ir/call-signal.ts';
import type { UpstreamErrorInfo } from '../ir/types.ts';
import type { ResolvedCredential } from '../live/credentials.ts';
import type { Breaker } from '../util/breaker.ts';
import type { RoutedTarget } from './call.ts';

/** Credentials one attempt may go through before its failure is the caller's answer. */
const MAX_TRIES = 3;

/**
 * The order to try the vendor's credentials in: weighted-random among the ready ones, then the
 * standbys, then those cooling down (soonest back first) so that a call still has somewhere to go.
 */
export function orderCredentials(
  list: readonly ResolvedCredential[],
  breaker: Breaker,
  now: number,
  random: () => number = Math.random,
): readonly ResolvedCredential[] {
  if (list.length <= 1) return list;
  const ready: ResolvedCredential[] = [];
  const standby: ResolvedCredential[] = [];
  const cooling: ResolvedCredential[] = [];
  for (const c of list) {
    if (breaker.coolingDown(c.id, now)) cooling.push(c);
    else if (c.weight > 0) ready.push(c);
    else standby.push(c);
  }
  const out: ResolvedCredential[] = [];
  // Weighted sampling without replacement: the first pick carries the traffic split, the rest
  // give the failover order.
  while (ready.length > 0) {
    let total = 0;
    for (const c of ready) total += c.weight;
    let r = random() * total;
    let i = 0;
    while (i < ready.length - 1 && r >= ready[i].weight) {
      r -= ready[i].weight;
      i++;
    }
    out.push(ready[i]);
    ready.splice(i, 1);
  }
  cooling.sort((a, b) => breaker.cooldownEnds(a.id) - breaker.cooldownEnds(b.id));
  return out.concat(standby, cooling);
}

/** Failures another credential of the same vendor may not repeat. Timeouts are not retried: the caller already waited. */
export function credentialFailure(error: UpstreamErrorInfo): boolean {
  return (
    error.status === 401 ||
    error.status === 403 ||
    error.status === 429 ||
    (error.status >= 500 && error.kind !== 'timeout') ||
    error.kind === 'network'
  );
}

type Outcome = { ok: true } | { ok: false; error: UpstreamErrorInfo };

/**
 * Runs `run` on `first`, then on `others` (the rest of the order) while the failure is the
 * credential's, never after the caller left. `each` sees every try, for health and the trace.
 */
export async function acrossCredentials<O extends Outcome>(
  first: RoutedTarget,
  others: readonly ResolvedCredential[],
  signal: CallSignal,
  run: (target: RoutedTarget) => Promise<O>,
  each?: (target: RoutedTarget, outcome: O, latencyMs: number) => void,
): Promise<{ target: RoutedTarget; outcome: O }> {
  let target = first;
  for (let i = 0; ; i++) {
    const started = performance.now();
    const outcome = await run(target);
    each?.(target, outcome, Math.round((performance.now() - started) * 100) / 100);
    const next = i + 1 < MAX_TRIES ? others[i] : undefined;
    if (outcome.ok || signal.aborted || !next || !credentialFailure(outcome.error)) return { target, outcome };
    target = { ...target, credentialId: next.id, credential: next.credential };
  }
}

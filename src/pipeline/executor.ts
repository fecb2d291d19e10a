// Runs an attempt plan against real upstreams: a direct call is a one-attempt plan, a routing
// config's decision runs through the routing loop. Every attempt is priced and leaves a health
// sample, which the health hook applies once the answer is out.
import type { CallSignal } from '../ir/call-signal.ts';
import type { AttemptOutcome } from '../ir/outcome.ts';
import type { Usage } from '../ir/types.ts';
import type { ResolvedCredential } from '../live/credentials.ts';
import { computeCost } from '../providers/catalog/cost.ts';
import type { ModelPrice } from '../providers/catalog/types.ts';
import { executePlan } from '../routing/execute.ts';
import { type AttemptRecord, attemptRecord, type ExecutionResult, type Executor } from '../routing/execute-types.ts';
import { type DecisionTrace, decisionTrace, directTrace } from '../routing/trace.ts';
import type { CandidateRef, PlannedAttempt } from '../routing/types.ts';
import type { ChatCall, RoutedTarget } from './call.ts';
import { attemptChat } from './chat-attempt.ts';
import { acrossCredentials } from './credential-pool.ts';
import { judgePick, judgeScore } from './judge.ts';
import { credentialSample, directHealthSamples, type HealthSample } from './record.ts';
import { credentialsOf, targetFor, targetOf } from './route.ts';
import type { LiveState, RoutePlan } from './types.ts';

export interface Served {
  target?: RoutedTarget;
  outcome: AttemptOutcome;
  attempts: AttemptRecord[];
  trace: DecisionTrace;
  /** Cost of the attempts other than the served one (ensemble losers, failed fallbacks, rejected steps). */
  otherCostUsd: number;
  samples: HealthSample[];
}

/** `price` is the org's override for the model (LiveState.priceOverride), when it has one. */
export function attemptCost(ref: CandidateRef, usage: Usage, price?: ModelPrice): number {
  const c = computeCost(ref.vendor, ref.model, usage, { price });
  if (c.known || !ref.price) return c.costUsd;
  return Math.round(((usage.input * ref.price.input + usage.output * ref.price.output) / 1e6) * 1e9) / 1e9;
}

function otherCost(attempts: AttemptRecord[], served: number | undefined): number {
  let sum = 0;
  attempts.forEach((a, i) => {
    if (i !== served) sum += a.cost_usd;
  });
  return Math.round(sum * 1e9) / 1e9;
}

const NO_CREDENTIAL = (ref: CandidateRef): AttemptOutcome => ({
  ok: false,
  error: {
    status: 400,
    kind: 'invalid_request',
    code: 'provider_not_configured',
    message: `no provider credential for ${ref.vendorAsSent}/${ref.model}`,
    retryable: false,
  },
});

export async function executeChat(
  call: ChatCall,
  plan: RoutePlan,
  orgId: string,
  live: LiveState,
  signal: CallSignal,
): Promise<Served> {
  if (plan.kind === 'direct') {
    const price = live.priceOverride(orgId, plan.target.vendor, plan.target.model);
    return executeDirect(call, plan.target, plan.alternates, signal, price);
  }
  const samples: HealthSample[] = [];
  // The credential each step was served by, for the record (credentials are picked per attempt).
  const servedBy = new Map<PlannedAttempt, RoutedTarget>();
  const exec: Executor = {
    async attempt(step, s) {
      const [first, ...others] = credentialsOf(live, orgId, step.ref);
      if (!first) return NO_CREDENTIAL(step.ref);
      const r = await acrossCredentials(
        targetFor(step.ref, first),
        others,
        s,
        (t) => attemptChat(call, t, s),
        (t, o, ms) => samples.push(credentialSample(t, o, ms)),
      );
      servedBy.set(step, r.target);
      return r.outcome;
    },
    cost: (ref, usage) => attemptCost(ref, usage, live.priceOverride(orgId, ref.vendor, ref.model)),
    async judgePick(judge, answers, s) {
      const t = targetOf(live, orgId, judge);
      return t ? judgePick(t, call.ir, answers, call.requestId, s) : undefined;
    },
    async judgeScore(judge, answer, s) {
      const t = targetOf(live, orgId, judge);
      return t ? judgeScore(t, call.ir, answer, call.requestId, s) : undefined;
    },
    observe(ref, ok, latencyMs, status, kind) {
      samples.push({ ref, ok, latencyMs, status, kind });
    },
  };
  const rf = call.ir.params.responseFormat;
  const r: ExecutionResult = await executePlan(plan.decision, exec, {
    signal,
    wantsJson: rf?.type === 'json_object' || rf?.type === 'json_schema',
  });
  if (r.servedIndex !== undefined && r.attempts[r.servedIndex]) r.attempts[r.servedIndex].served = true;
  const served = r.outcome.ok && r.step ? { model: r.step.ref.model, provider: r.step.ref.vendorAsSent } : null;
  return {
    target: r.step ? (servedBy.get(r.step) ?? targetOf(live, orgId, r.step.ref)) : undefined,
    outcome: r.outcome,
    attempts: r.attempts,
    trace: decisionTrace(plan.cfg.strategy, plan.config, plan.decision, r.attempts, served),
    otherCostUsd: otherCost(r.attempts, r.servedIndex),
    samples,
  };
}

async function executeDirect(
  call: ChatCall,
  first: RoutedTarget,
  alternates: readonly ResolvedCredential[],
  signal: CallSignal,
  price: ModelPrice | undefined,
): Promise<Served> {
  const attempts: AttemptRecord[] = [];
  const samples: HealthSample[] = [];
  const ref: CandidateRef = { vendor: first.vendor, vendorAsSent: first.vendorAsSent, model: first.model };
  const { target, outcome } = await acrossCredentials(
    first,
    alternates,
    signal,
    (t) => attemptChat(call, t, signal),
    (t, o, latency) => {
      attempts.push(attemptRecord(t, o, latency, o.ok && o.kind === 'json' ? attemptCost(ref, o.usage, price) : 0));
      samples.push(...directHealthSamples(t, o, latency, signal));
    },
  );
  const served = attempts[attempts.length - 1];
  served.served = true;
  const servedBy = outcome.ok ? { model: target.model, provider: target.vendorAsSent } : null;
  return {
    target,
    outcome,
    attempts,
    trace: directTrace(target.model, target.vendorAsSent, attempts, servedBy),
    otherCostUsd: 0,
    samples,
  };
}

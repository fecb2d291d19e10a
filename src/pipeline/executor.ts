// Runs a routing decision against real upstreams: resolves each candidate's credential, runs the plan
// through the execution loop with attemptChat, feeds health, and prices every attempt.
import type { Usage } from '../ir/types.ts';
import { computeCost } from '../providers/catalog/cost.ts';
import type { VendorId } from '../providers/types.ts';
import { attemptChat, type ChatCall, type ChatTarget } from './chat-attempt.ts';
import type { StoredCredential } from './deps.ts';
import { executePlan } from '../routing/execute.ts';
import type { ExecutionResult, Executor } from '../routing/execute-types.ts';
import { countsAgainstHealth, type HealthTracker } from '../routing/health.ts';
import { judgePick, judgeScore } from '../routing/judge.ts';
import type { CandidateRef, Decision } from '../routing/types.ts';

export interface RoutingDeps {
  credentialById(orgId: string, id: string): StoredCredential | undefined;
  credentialFor(orgId: string, vendor: VendorId): StoredCredential | undefined;
  health: HealthTracker;
}

export interface RoutedResult extends ExecutionResult {
  /** The target that produced the returned outcome. */
  target?: ChatTarget;
}

export function credentialOf(deps: RoutingDeps, orgId: string, ref: CandidateRef): StoredCredential | undefined {
  if (ref.credentialId) return deps.credentialById(orgId, ref.credentialId);
  return deps.credentialFor(orgId, ref.vendor);
}

export function targetOf(deps: RoutingDeps, orgId: string, ref: CandidateRef): ChatTarget | undefined {
  const stored = credentialOf(deps, orgId, ref);
  if (!stored) return undefined;
  return {
    vendor: ref.vendor,
    vendorAsSent: ref.vendorAsSent,
    model: ref.model,
    credentialId: stored.id,
    credential: stored.credential,
  };
}

export function attemptCost(ref: CandidateRef, usage: Usage): number {
  const c = computeCost(ref.vendor, ref.model, usage);
  if (c.known || !ref.price) return c.costUsd;
  return Math.round(((usage.input * ref.price.input + usage.output * ref.price.output) / 1e6) * 1e9) / 1e9;
}

export async function executeRouted(
  call: ChatCall,
  decision: Decision,
  orgId: string,
  deps: RoutingDeps,
  signal: AbortSignal,
): Promise<RoutedResult> {
  const noCredential = (ref: CandidateRef) => ({
    ok: false as const,
    error: {
      status: 400,
      kind: 'invalid_request' as const,
      code: 'provider_not_configured',
      message: `no provider credential for ${ref.vendorAsSent}/${ref.model}`,
      retryable: false,
    },
  });
  const exec: Executor = {
    attempt(step, s) {
      const target = targetOf(deps, orgId, step.ref);
      return target ? attemptChat(call, target, s) : Promise.resolve(noCredential(step.ref));
    },
    cost: attemptCost,
    async judgePick(judge, answers, s) {
      const t = targetOf(deps, orgId, judge);
      return t ? judgePick(t, call.ir, answers, call.requestId, s) : undefined;
    },
    async judgeScore(judge, answer, s) {
      const t = targetOf(deps, orgId, judge);
      return t ? judgeScore(t, call.ir, answer, call.requestId, s) : undefined;
    },
    observe(ref, ok, latencyMs, status, kind) {
      if (ok) deps.health.record(ref, true, latencyMs);
      else if (countsAgainstHealth(status, kind)) deps.health.record(ref, false, latencyMs);
    },
  };
  const rf = call.ir.params.responseFormat;
  const result = await executePlan(decision, exec, {
    signal,
    wantsJson: rf?.type === 'json_object' || rf?.type === 'json_schema',
  });
  return { ...result, target: result.step ? targetOf(deps, orgId, result.step.ref) : undefined };
}

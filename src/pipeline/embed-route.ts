// `@slug` embeddings: the config's strategy orders the candidates (screened as embedding models that
// can produce the pinned length), then they are tried in order with the config's retry rule. The
// pinned length is sent upstream and checked on every vector.
import type { EmbeddingRequest } from '../ir/types.ts';
import type { Deadlines } from '../providers/http.ts';
import { shouldRetry } from '../routing/acceptance.ts';
import { type AttemptRecord, attemptRecord } from '../routing/execute-types.ts';
import { type DecisionTrace, decisionTrace } from '../routing/trace.ts';
import type { ActiveConfig, Decision } from '../routing/types.ts';
import type { ChatTarget } from './call.ts';
import { acrossCredentials } from './credential-pool.ts';
import { type EmbedOutcome, embedOnce } from './embed-attempt.ts';
import { credentialSample, type HealthSample, healthSample } from './record.ts';
import { credentialsOf, targetFor } from './route.ts';
import type { LiveState } from './types.ts';

export interface EmbedRouteInput {
  orgId: string;
  cfg: ActiveConfig;
  input: string[];
  user?: string;
  deadlines?: Deadlines;
}

export interface EmbedServed {
  outcome: EmbedOutcome;
  target?: ChatTarget;
  trace: DecisionTrace;
  samples: HealthSample[];
}

export async function executeEmbedding(
  i: EmbedRouteInput,
  plan: { decision: Decision; dims?: number },
  live: LiveState,
  signal: AbortSignal,
): Promise<EmbedServed> {
  const attempts: AttemptRecord[] = [];
  const samples: HealthSample[] = [];
  let outcome: EmbedOutcome = {
    ok: false,
    error: {
      status: 503,
      kind: 'server',
      code: 'no_eligible_candidate',
      message: 'no candidate of the routing config can produce these embeddings',
      retryable: false,
    },
  };
  let served: ChatTarget | undefined;
  for (const [n, step] of plan.decision.attempts.entries()) {
    const [first, ...others] = credentialsOf(live, i.orgId, step.ref);
    if (!first) continue;
    const { vendor, model } = step.ref;
    const ctl = new AbortController();
    const relay = (): void => ctl.abort(signal.reason);
    signal.addEventListener('abort', relay, { once: true });
    const timer = step.timeoutMs
      ? setTimeout(() => ctl.abort(new DOMException('attempt timed out', 'TimeoutError')), step.timeoutMs)
      : undefined;
    const started = performance.now();
    const req: EmbeddingRequest = { model, input: i.input, dimensions: plan.dims, user: i.user };
    const tried = await acrossCredentials(
      targetFor(step.ref, first),
      others,
      ctl.signal,
      (t) => embedOnce(req, { vendor, model, credential: t.credential }, ctl.signal, plan.dims, i.deadlines),
      (t, o, ms) => samples.push(credentialSample(t, o, ms)),
    );
    outcome = tried.outcome;
    const target = tried.target;
    if (timer) clearTimeout(timer);
    signal.removeEventListener('abort', relay);
    const latency = Math.round((performance.now() - started) * 100) / 100;
    served = target;
    attempts.push(attemptRecord(target, outcome, latency, 0));
    if (!signal.aborted) samples.push(healthSample(step.ref, outcome, latency));
    if (outcome.ok || signal.aborted || n === plan.decision.attempts.length - 1) break;
    if (!shouldRetry(plan.decision.retry, outcome.error)) break;
  }
  if (attempts.length > 0) attempts[attempts.length - 1].served = outcome.ok;
  const servedBy = outcome.ok && served ? { model: served.model, provider: served.vendorAsSent } : null;
  const trace = decisionTrace(
    i.cfg.strategy,
    { slug: i.cfg.slug, version: i.cfg.version },
    plan.decision,
    attempts,
    servedBy,
  );
  return { outcome, target: served, trace, samples };
}

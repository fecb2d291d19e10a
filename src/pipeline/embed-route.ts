// `@slug` embeddings: the config's strategy orders the candidates (screened as embedding models that
// can produce the pinned length), then they are tried in order with the config's retry rule (the
// routing loop's sequential mode). The pinned length is sent upstream and checked on every vector.
import type { CallSignal } from '../ir/call-signal.ts';
import type { EmbeddingRequest } from '../ir/types.ts';
import type { Deadlines } from '../providers/http.ts';
import { runSequential } from '../routing/execute.ts';
import { type DecisionTrace, decisionTrace } from '../routing/trace.ts';
import type { ActiveConfig, Decision } from '../routing/types.ts';
import type { RoutedTarget } from './call.ts';
import { acrossCredentials } from './credential-pool.ts';
import { type EmbedOutcome, embedOnce } from './embed-attempt.ts';
import { credentialSample, type HealthSample } from './record.ts';
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
  target?: RoutedTarget;
  trace: DecisionTrace;
  samples: HealthSample[];
}

export async function executeEmbedding(
  i: EmbedRouteInput,
  plan: { decision: Decision; dims?: number },
  live: LiveState,
  signal: CallSignal,
): Promise<EmbedServed> {
  const samples: HealthSample[] = [];
  // Steps run one at a time, so the credential of the last step tried is the one that served.
  let served: RoutedTarget | undefined;
  const r = await runSequential<EmbedOutcome>(
    plan.decision,
    {
      async attempt(step, s) {
        const [first, ...others] = credentialsOf(live, i.orgId, step.ref);
        if (!first) return undefined;
        const { vendor, model } = step.ref;
        const req: EmbeddingRequest = { model, input: i.input, dimensions: plan.dims, user: i.user };
        const tried = await acrossCredentials(
          targetFor(step.ref, first),
          others,
          s,
          (t) => embedOnce(req, { vendor, model, credential: t.credential }, s, plan.dims, i.deadlines),
          (t, o, ms) => samples.push(credentialSample(t, o, ms)),
        );
        served = tried.target;
        return tried.outcome;
      },
      observe(ref, ok, latencyMs, status, kind) {
        samples.push({ ref, ok, latencyMs, status, kind });
      },
    },
    signal,
  );
  const outcome = r.step === undefined ? NO_CANDIDATE : r.outcome;
  const attempts = r.attempts;
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

const NO_CANDIDATE: EmbedOutcome = {
  ok: false,
  error: {
    status: 503,
    kind: 'server',
    code: 'no_eligible_candidate',
    message: 'no candidate of the routing config can produce these embeddings',
    retryable: false,
  },
};

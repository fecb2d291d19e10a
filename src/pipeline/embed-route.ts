// `@slug` embeddings: the config's strategy orders the candidates (screened as embedding models that can
// produce the pinned length), then they are tried in order with the config's retry rule. The pinned
// length is sent upstream and checked on every vector.
import type { EmbeddingRequest } from '../ir/types.ts';
import type { ChatTarget } from './chat-attempt.ts';
import { type EmbedOutcome, embedOnce } from './embed-attempt.ts';
import { GatewayFailure } from './resolve-target.ts';
import { shouldRetry } from '../routing/acceptance.ts';
import type { ActiveConfig } from '../live/routing-configs.ts';
import type { AttemptRecord } from '../routing/execute-types.ts';
import { countsAgainstHealth } from '../routing/health.ts';
import { planFor } from '../routing/planner.ts';
import type { ProxyRouting } from './proxy-routing.ts';
import { credentialOf, targetOf } from './executor.ts';
import { type DecisionTrace, type DryRunEnvelope, decisionTrace, dryRunEnvelope } from '../routing/trace.ts';
import type { Decision, RequestFacts } from '../routing/types.ts';

export interface EmbedRouteInput {
  orgId: string;
  cfg: ActiveConfig;
  input: string[];
  /** `dimensions` from the body. */
  dimensions?: number;
  user?: string;
  endUser?: string;
  traceId?: string;
  tags: Record<string, string>;
  headers: Record<string, string>;
}

function embedFacts(i: EmbedRouteInput, dims: number | undefined): RequestFacts {
  const text = i.input.join('\n');
  return {
    family: 'alpha',
    ir: {
      model: `@${i.cfg.slug}`,
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text }] }],
      tools: [],
      params: {},
      stream: false,
    },
    tags: i.tags,
    endUser: i.endUser,
    traceId: i.traceId,
    metadata: {},
    headers: i.headers,
    // Embedding prices are per input token; a character estimate is close enough for ranking.
    estimatedTokens: Math.ceil(text.length / 4),
    kind: 'embedding',
    dimensions: dims,
  };
}

/** The pinned length, refusing a body that asks for another one (SPEC dimension rule 4). */
export function pinnedDimensions(cfg: ActiveConfig, requested: number | undefined): number | undefined {
  const pinned = cfg.embeddingDimensions ?? undefined;
  if (pinned !== undefined && requested !== undefined && requested !== pinned) {
    throw new GatewayFailure(
      400,
      `dimensions ${requested} conflicts with the ${pinned} pinned by routing config "${cfg.slug}"`,
      'dimension_conflict',
      'dimensions',
    );
  }
  return pinned ?? requested;
}

export function planEmbedding(
  i: EmbedRouteInput,
  routing: ProxyRouting,
): { decision: Decision; envelope: DryRunEnvelope; dims?: number } {
  const dims = pinnedDimensions(i.cfg, i.dimensions);
  const decision = planFor(i.cfg, embedFacts(i, dims), {
    health: routing.health,
    hasCredential: (r) => credentialOf(routing, i.orgId, r) !== undefined,
  });
  const envelope = dryRunEnvelope(i.cfg.strategy, { slug: i.cfg.slug, version: i.cfg.version }, decision);
  return { decision, envelope, dims };
}

export interface EmbedServed {
  outcome: EmbedOutcome;
  target?: ChatTarget;
  trace: DecisionTrace;
}

export async function executeEmbedding(
  i: EmbedRouteInput,
  plan: { decision: Decision; dims?: number },
  routing: ProxyRouting,
  signal: AbortSignal,
): Promise<EmbedServed> {
  const attempts: AttemptRecord[] = [];
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
    const target = targetOf(routing, i.orgId, step.ref);
    if (!target) continue;
    const ctl = new AbortController();
    const relay = (): void => ctl.abort(signal.reason);
    signal.addEventListener('abort', relay, { once: true });
    const timer = step.timeoutMs
      ? setTimeout(() => ctl.abort(new DOMException('attempt timed out', 'TimeoutError')), step.timeoutMs)
      : undefined;
    const started = performance.now();
    const req: EmbeddingRequest = { model: target.model, input: i.input, dimensions: plan.dims, user: i.user };
    outcome = await embedOnce(
      req,
      { vendor: target.vendor, model: target.model, credential: target.credential },
      ctl.signal,
      plan.dims,
    );
    if (timer) clearTimeout(timer);
    signal.removeEventListener('abort', relay);
    const latency = Math.round((performance.now() - started) * 100) / 100;
    served = target;
    const rec: AttemptRecord = {
      model: target.model,
      provider: target.vendorAsSent,
      status: outcome.ok ? 200 : outcome.error.status,
      outcome: outcome.ok ? 'success' : 'error',
      latency_ms: latency,
      cost_usd: 0,
    };
    if (!outcome.ok) rec.error = outcome.error.message;
    attempts.push(rec);
    if (outcome.ok) routing.health.record(step.ref, true, latency);
    else if (countsAgainstHealth(outcome.error.status, outcome.error.kind))
      routing.health.record(step.ref, false, latency);
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
  return { outcome, target: served, trace };
}

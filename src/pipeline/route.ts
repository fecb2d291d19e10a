// The routing step of the chat path: a direct model or an `@slug` config becomes a decision, which is
// either answered as a dry run or executed. Family-neutral: it sees the IR, svc extensions and headers.
import type { IncomingHttpHeaders } from 'node:http';
import type { SvcExtensions } from '../families/shared/svc.ts';
import { ACCEPTED_MODEL_FORMS, parseModelRef } from '../providers/registry.ts';
import { type AttemptOutcome, attemptChat, type ChatCall, type ChatTarget } from './chat-attempt.ts';
import type { Principal, ProxyDeps } from './deps.ts';
import type { SvcHeaders } from '../families/shared/svc-headers.ts';
import { GatewayFailure, resolveDirectTarget } from './resolve-target.ts';
import { configDryRun, directDryRun } from '../routing/dry-run.ts';
import type { AttemptRecord } from '../routing/execute-types.ts';
import { countsAgainstHealth } from '../routing/health.ts';
import { requestFacts } from '../routing/planner.ts';
import type { ProxyRouting } from './proxy-routing.ts';
import { attemptCost, credentialOf, executeRouted } from './executor.ts';
import { type ConfigRef, type DecisionTrace, type DryRunEnvelope, decisionTrace, directDecision } from '../routing/trace.ts';

export interface RouteInput {
  family: ChatCall['family'];
  principal: Principal;
  call: ChatCall;
  svc: SvcExtensions;
  hdr: SvcHeaders;
  headers: IncomingHttpHeaders;
  dryRun: boolean;
  signal: AbortSignal;
}

export interface Served {
  target?: ChatTarget;
  outcome: AttemptOutcome;
  attempts: AttemptRecord[];
  trace: DecisionTrace;
  /** Cost of the attempts other than the served one (ensemble losers, failed fallbacks, rejected steps). */
  otherCostUsd: number;
}

export type RouteStep =
  | { kind: 'dry_run'; envelope: DryRunEnvelope }
  | { kind: 'run'; config: ConfigRef | null; execute(): Promise<Served> };

export type RoutedProxyDeps = ProxyDeps & { routing?: ProxyRouting };

function otherCost(attempts: AttemptRecord[], served: number | undefined): number {
  let sum = 0;
  attempts.forEach((a, i) => {
    if (i !== served) sum += a.cost_usd;
  });
  return Math.round(sum * 1e9) / 1e9;
}

/** Throws GatewayFailure for requests that cannot be routed (unknown model or config, BYOK on a config...). */
export function routeChat(input: RouteInput, deps: RoutedProxyDeps): RouteStep {
  const { call, principal, hdr } = input;
  const ref = parseModelRef(call.ir.model);
  if (!ref)
    throw new GatewayFailure(
      400,
      `unknown model "${call.ir.model}"; ${ACCEPTED_MODEL_FORMS}`,
      'model_not_found',
      'model',
    );
  if (ref.kind === 'direct') return routeDirect(input, deps);
  const routing = deps.routing;
  if (hdr.providerKey) {
    throw new GatewayFailure(
      400,
      'X-Svc-Provider-Key is honoured only on direct model calls, not on "@<slug>" routing configs',
      'provider_key_not_allowed',
      'model',
    );
  }
  const cfg = routing?.config(principal.orgId, ref.slug);
  if (!routing || !cfg)
    throw new GatewayFailure(404, `no routing config with slug "${ref.slug}"`, 'routing_config_not_found', 'model');
  if (cfg.projectId !== null && principal.projectId !== null && cfg.projectId !== principal.projectId) {
    throw new GatewayFailure(
      404,
      `no routing config with slug "${ref.slug}" in this project`,
      'routing_config_not_found',
      'model',
    );
  }
  const facts = requestFacts({ family: input.family, ir: call.ir, svc: input.svc, hdr, headers: input.headers });
  const { decision, envelope } = configDryRun(cfg, facts, {
    health: routing.health,
    hasCredential: (r) => credentialOf(routing, principal.orgId, r) !== undefined,
  });
  if (input.dryRun) return { kind: 'dry_run', envelope };
  if (call.ir.stream && (decision.mode === 'cascade' || decision.mode === 'parallel_judge')) {
    throw new GatewayFailure(
      400,
      `the ${cfg.strategy} strategy needs whole answers before choosing one; send stream: false`,
      'stream_not_supported',
      'stream',
    );
  }
  const config = { slug: cfg.slug, version: cfg.version };
  return {
    kind: 'run',
    config,
    async execute() {
      const r = await executeRouted(call, decision, principal.orgId, routing, input.signal);
      if (r.servedIndex !== undefined && r.attempts[r.servedIndex]) r.attempts[r.servedIndex].served = true;
      const servedBy = r.outcome.ok && r.step ? { model: r.step.ref.model, provider: r.step.ref.vendorAsSent } : null;
      return {
        target: r.target,
        outcome: r.outcome,
        attempts: r.attempts,
        trace: decisionTrace(cfg.strategy, config, decision, r.attempts, servedBy),
        otherCostUsd: otherCost(r.attempts, r.servedIndex),
      };
    },
  };
}

function routeDirect(input: RouteInput, deps: RoutedProxyDeps): RouteStep {
  const target = resolveDirectTarget(input.call.ir.model, input.principal, input.hdr, deps);
  if (input.dryRun) return { kind: 'dry_run', envelope: directDryRun(target.model, target.vendorAsSent) };
  return {
    kind: 'run',
    config: null,
    async execute() {
      const started = performance.now();
      const outcome = await attemptChat(input.call, target, input.signal);
      const latency = Math.round((performance.now() - started) * 100) / 100;
      const ref = { vendor: target.vendor, vendorAsSent: target.vendorAsSent, model: target.model };
      const record: AttemptRecord = {
        model: target.model,
        provider: target.vendorAsSent,
        status: outcome.ok ? 200 : outcome.error.status,
        outcome: outcome.ok ? 'success' : 'error',
        latency_ms: latency,
        cost_usd: outcome.ok && outcome.kind === 'json' ? attemptCost(ref, outcome.usage) : 0,
        served: true,
      };
      if (!outcome.ok) record.error = outcome.error.message;
      // Direct calls feed health too, so that a config naming the same model starts with real numbers.
      if (deps.routing && !input.hdr.providerKey && !input.signal.aborted) {
        if (outcome.ok) deps.routing.health.record(ref, true, latency);
        else if (countsAgainstHealth(outcome.error.status, outcome.error.kind))
          deps.routing.health.record(ref, false, latency);
      }
      const decision = directDecision(target.model, target.vendorAsSent);
      const servedBy = outcome.ok ? { model: target.model, provider: target.vendorAsSent } : null;
      return {
        target,
        outcome,
        attempts: [record],
        trace: decisionTrace('direct', null, decision, [record], servedBy),
        otherCostUsd: 0,
      };
    },
  };
}

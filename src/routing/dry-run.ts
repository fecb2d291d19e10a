// Routing without calling anyone: the decision for a config (or a direct model) as the dry-run envelope.
import { type PlanOptions, planFor } from './planner.ts';
import { type DryRunEnvelope, directDecision, dryRunEnvelope } from './trace.ts';
import type { ActiveConfig, Decision, RequestFacts } from './types.ts';

export function configDryRun(
  cfg: ActiveConfig,
  facts: RequestFacts,
  opts: PlanOptions,
): { decision: Decision; envelope: DryRunEnvelope } {
  const decision = planFor(cfg, facts, opts);
  return { decision, envelope: dryRunEnvelope(cfg.strategy, { slug: cfg.slug, version: cfg.version }, decision) };
}

export function directDryRun(model: string, provider: string): DryRunEnvelope {
  return dryRunEnvelope('direct', null, directDecision(model, provider));
}

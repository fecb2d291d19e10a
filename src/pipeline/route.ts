// The one routing flow of every proxy call: a direct model name becomes a target with its
// credential; an `@slug` becomes a planned decision from the live config. The checks that belong to
// routing live here once: BYOK only on direct names, the config's project, the config's kind.
import { echo, GatewayError } from '../errors/gateway-error.ts';
import type { SvcHeaders } from '../families/shared/svc-headers.ts';
import type { ResolvedCredential } from '../live/credentials.ts';
import type { Principal } from '../live/principals.ts';
import { acceptedModelForms, type ModelRef, parseModelRef } from '../providers/registry.ts';
import { configDryRun, directDryRun } from '../routing/dry-run.ts';
import type { DryRunEnvelope } from '../routing/trace.ts';
import type { ActiveConfig, CandidateRef, Decision, RequestFacts } from '../routing/types.ts';
import { type CompiledPatterns, compiledMatches } from '../util/model-patterns.ts';
import type { RoutedTarget } from './call.ts';
import { orderCredentials } from './credential-pool.ts';
import type { LiveState, RoutePlan } from './types.ts';

export interface RouteRequest {
  model: string;
  principal: Principal;
  hdr: SvcHeaders;
  kind: 'chat' | 'embedding';
  /** Built only for `@slug` calls: strategies read them, direct calls do not need them. */
  facts(cfgDimensions: number | null): RequestFacts;
}

const WRONG_KIND: Record<RouteRequest['kind'], string> = {
  chat: 'not_a_chat_model',
  embedding: 'not_an_embedding_model',
};

/** Model names and slugs are ASCII; anything else would end up in a response header. */
const MODEL_NAME = /^[\x21-\x7e]{1,256}$/;

export function routeCall(req: RouteRequest, live: LiveState): RoutePlan {
  if (!MODEL_NAME.test(req.model))
    throw new GatewayError('invalid_model', { vars: { model: echo(req.model) }, param: 'model' });
  // An org's alias stands for a model or a slug before anything else reads the name.
  const aliased = live.modelAlias(req.principal.orgId, req.model);
  const model = aliased ?? req.model;
  const ref = parseModelRef(model);
  if (!ref)
    throw new GatewayError('model_not_found', {
      vars: { model: echo(model), accepted: acceptedModelForms(echo(model)) },
      param: 'model',
    });
  // An allow-list admits an alias by its own name (like a slug) or by what it stands for.
  const allow = req.principal.modelAllow;
  if (allow != null && !keyAllows(allow, model, ref) && !(aliased && compiledMatches(allow, req.model)))
    throw new GatewayError('model_not_allowed', { vars: { model: echo(req.model) }, param: 'model' });
  const plan = planOf(ref, req, live);
  return aliased === undefined ? plan : { ...plan, alias: { name: req.model, model: aliased } };
}

function planOf(ref: ModelRef, req: RouteRequest, live: LiveState): RoutePlan {
  if (ref.kind === 'direct') return directPlan(ref.resolved, req, live);
  if (req.hdr.providerKey) throw new GatewayError('provider_key_not_allowed', { param: 'model' });
  const cfg = live.config(req.principal.orgId, ref.slug);
  if (!cfg || !servesCaller(cfg, req.principal, live))
    throw new GatewayError('routing_config_not_found', { vars: { slug: ref.slug }, param: 'model' });
  const { decision, envelope } = configDryRun(cfg, req.facts(cfg.embeddingDimensions), {
    health: live.health,
    hasCredential: (r) => hasCredential(live, req.principal.orgId, r),
  });
  refuseWrongKind(decision, req.kind, ref.slug);
  return { kind: 'config', cfg, config: { slug: cfg.slug, version: cfg.version }, decision, envelope };
}

/**
 * The key's allow-list, on the name as sent and, for a direct name, on its canonical `vendor/model`
 * (so `openai/*` admits a bare `gpt-4o`). A slug is judged by its name, never by its candidates: the
 * key holder chose the config, not the models an operator put in it.
 */
export function keyAllows(allow: CompiledPatterns, model: string, ref: ModelRef): boolean {
  if (compiledMatches(allow, model)) return true;
  return ref.kind === 'direct' && compiledMatches(allow, `${ref.resolved.vendor}/${ref.resolved.model}`);
}

/**
 * A project-scoped key sees its own project's configs and the org-wide ones, never another
 * project's; a soft-deleted project's configs stop serving with it.
 */
function servesCaller(cfg: ActiveConfig, principal: Principal, live: LiveState): boolean {
  if (cfg.projectId === null) return true;
  if (principal.projectId !== null && cfg.projectId !== principal.projectId) return false;
  return !live.projectDeleted(cfg.projectId);
}

/** A config whose every candidate is of the other kind is a caller mistake, not an upstream failure. */
function refuseWrongKind(decision: Decision, kind: RouteRequest['kind'], slug: string): void {
  if (decision.attempts.length > 0 || decision.candidates.length === 0) return;
  if (!decision.candidates.every((c) => c.reason === WRONG_KIND[kind])) return;
  const other = kind === 'chat' ? 'embeddings' : 'chat';
  throw new GatewayError('routing_config_kind_mismatch', {
    vars: { slug, kind: other, requested: kind === 'chat' ? 'chat' : 'embeddings' },
    param: 'model',
  });
}

export function dryRunOf(plan: RoutePlan): DryRunEnvelope {
  const envelope = plan.kind === 'config' ? plan.envelope : directDryRun(plan.target.model, plan.target.vendorAsSent);
  return plan.alias ? { dry_run: { ...envelope.dry_run, alias: plan.alias } } : envelope;
}

function directPlan(
  resolved: { vendor: RoutedTarget['vendor']; vendorAsSent: string; model: string },
  req: RouteRequest,
  live: LiveState,
): RoutePlan {
  const { vendor, vendorAsSent, model } = resolved;
  if (req.hdr.providerKey) {
    // BYOK: the key is used for this call only; the base URL still comes from a stored credential if any.
    const stored = live.credentialsFor(req.principal.orgId, vendor)[0];
    const credential = { apiKey: req.hdr.providerKey, baseUrl: stored?.credential.baseUrl ?? null };
    return { kind: 'direct', target: { vendor, vendorAsSent, model, credential }, alternates: [], config: null };
  }
  const [first, ...alternates] = orderedCredentials(live, req.principal.orgId, vendor);
  if (!first) throw new GatewayError('provider_not_configured', { vars: { vendor: vendorAsSent }, param: 'model' });
  return { kind: 'direct', target: targetFor(resolved, first), alternates, config: null };
}

function orderedCredentials(live: LiveState, orgId: string, vendor: RoutedTarget['vendor']) {
  return orderCredentials(live.credentialsFor(orgId, vendor), live.health.credentials, Date.now());
}

function hasCredential(live: LiveState, orgId: string, ref: CandidateRef): boolean {
  if (ref.credentialId) return live.credentialById(orgId, ref.credentialId) !== undefined;
  return live.credentialsFor(orgId, ref.vendor).length > 0;
}

/** The credentials a candidate may use, in the order to try them (one when the config pins it). */
export function credentialsOf(live: LiveState, orgId: string, ref: CandidateRef): readonly ResolvedCredential[] {
  if (ref.credentialId) {
    const pinned = live.credentialById(orgId, ref.credentialId);
    return pinned ? [pinned] : [];
  }
  return orderedCredentials(live, orgId, ref.vendor);
}

export function credentialOf(live: LiveState, orgId: string, ref: CandidateRef): ResolvedCredential | undefined {
  return credentialsOf(live, orgId, ref)[0];
}

/** What a model (direct name or config candidate) is called with on one stored credential. */
export function targetFor(
  ref: { vendor: RoutedTarget['vendor']; vendorAsSent: string; model: string },
  stored: ResolvedCredential,
): RoutedTarget {
  const { vendor, vendorAsSent, model } = ref;
  return { vendor, vendorAsSent, model, credentialId: stored.id, credential: stored.credential };
}

export function targetOf(live: LiveState, orgId: string, ref: CandidateRef): RoutedTarget | undefined {
  const stored = credentialOf(live, orgId, ref);
  return stored ? targetFor(ref, stored) : undefined;
}

/** The routing config a call names (`@slug`, directly or through an org alias), by id: guardrail scopes match on it. */
export function routingConfigIdOf(model: string, orgId: string, live: LiveState): string | null {
  const name = live.modelAlias(orgId, model) ?? model;
  if (!name.startsWith('@')) return null;
  return live.config(orgId, name.slice(1))?.id ?? null;
}

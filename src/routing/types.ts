// Shared vocabulary of the routing layer: what a strategy receives, what it decides, and what the
// decision trace records. Strategies are pure: everything they need (catalog, health, randomness)
// comes in through PlanContext so that tests and dry-runs see exactly what live traffic sees.

import type { Family } from '../families/shared/codec.ts';
import type { ChatRequest } from '../ir/types.ts';
import type { ModelInfo } from '../providers/catalog/types.ts';
import type { VendorId } from '../providers/types.ts';

export const STRATEGY_NAMES = [
  'single',
  'fallback',
  'cost_optimized',
  'latency_optimized',
  'ensemble',
  'ab_test',
  'cascade',
  'custom_rules',
] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** One model a config may call, as written in the config and as resolved. */
export interface CandidateRef {
  vendor: VendorId;
  /** Vendor as the config wrote it (aliases are echoed back). */
  vendorAsSent: string;
  /** Upstream model id. */
  model: string;
  credentialId?: string;
  timeoutMs?: number;
  /** Price override (USD per 1M tokens) for models the catalog does not know. */
  price?: { input: number; output: number };
}

export interface CandidateTrace {
  model: string;
  provider: string;
  eligible: boolean;
  reason: string;
  score?: number;
}

/** Acceptance check a cascade step applies before its answer is returned. */
export interface AcceptanceCheck {
  /** Reject answers cut by the token limit. */
  rejectLength: boolean;
  rejectEmpty: boolean;
  /** Reject unparseable JSON when the request asked for JSON. */
  rejectInvalidJson: boolean;
  judge?: { ref: CandidateRef; threshold: number };
}

export interface PlannedAttempt {
  ref: CandidateRef;
  timeoutMs?: number;
  accept?: AcceptanceCheck;
}

export type PlanMode = 'sequential' | 'parallel_fastest' | 'parallel_judge' | 'cascade';

/** Which upstream failures move a sequential plan on to its next attempt. */
export interface RetryRule {
  statuses: ReadonlySet<number>;
  classes: ReadonlySet<'4xx' | '5xx'>;
  timeout: boolean;
}

export interface Decision {
  mode: PlanMode;
  attempts: PlannedAttempt[];
  candidates: CandidateTrace[];
  matchedRule: string | null;
  variantBucket: string | null;
  retry: RetryRule;
  judge?: CandidateRef;
}

export interface RequestFacts {
  family: Family;
  ir: ChatRequest;
  tags: Record<string, string>;
  endUser?: string;
  traceId?: string;
  metadata: Record<string, unknown>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Estimated prompt tokens (computed once per request). */
  estimatedTokens: number;
  /** Embeddings calls screen candidates as embedding models; absent means chat. */
  kind?: 'chat' | 'embedding';
  /** Embeddings: the vector length the config pins. */
  dimensions?: number;
}

export interface HealthView {
  coolingDown(ref: CandidateRef, now: number): boolean;
  /** Recent median latency in ms; undefined when there is no recent sample. */
  p50(ref: CandidateRef, now: number): number | undefined;
}

export interface PlanContext {
  req: RequestFacts;
  slug: string;
  lookupModel(vendor: VendorId, model: string): ModelInfo | undefined;
  health: HealthView;
  /** False when no credential can serve the candidate (its own id, or the org's for its vendor). */
  hasCredential?(ref: CandidateRef): boolean;
  /** Uniform in [0, 1); injected so that tests are deterministic. */
  random(): number;
  now: number;
}

export interface CompiledStrategy {
  /** Every model the config may call (credential references, eligibility). */
  refs: CandidateRef[];
  decide(ctx: PlanContext): Decision;
}

export interface Strategy {
  name: StrategyName;
  /** Validates the `config` object of a routing config; throws ConfigError naming the field. */
  compile(config: Record<string, unknown>): CompiledStrategy;
}

export class ConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

export function keyOf(ref: CandidateRef): string {
  return `${ref.vendor}/${ref.model}`;
}

/** A live routing config as the proxy uses it: the current version, compiled once. */
export interface ActiveConfig {
  id: string;
  orgId: string;
  projectId: string | null;
  slug: string;
  version: number;
  strategy: StrategyName;
  embeddingDimensions: number | null;
  compiled: CompiledStrategy;
}

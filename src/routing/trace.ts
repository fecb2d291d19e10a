// The decision trace (stored in the log row, returned as `svc:trace` on request) and the dry-run
// envelope. Both are built from the Decision alone, never from family-specific fields, so the same
// conversation yields byte-identical output through either family.
import type { AttemptRecord } from './execute-types.ts';
import type { CandidateTrace, Decision } from './types.ts';

export interface ConfigRef {
  slug: string;
  version: number;
}

/** A model alias the caller used: its name and the model or `@slug` it stands for. */
export interface AliasUse {
  name: string;
  model: string;
}

export interface DecisionTrace {
  policy: string;
  config: ConfigRef | null;
  candidates: CandidateTrace[];
  matched_rule: string | null;
  variant_bucket: string | null;
  attempts: AttemptRecord[];
  /** The attempt whose answer was returned. */
  served_by: { model: string; provider: string } | null;
  warnings?: string[];
  alias?: AliasUse;
}

export interface DryRunEnvelope {
  dry_run: {
    policy: string;
    config: ConfigRef | null;
    target: { model: string; provider: string } | null;
    candidates: CandidateTrace[];
    matched_rule: string | null;
    variant_bucket: string | null;
    alias?: AliasUse;
  };
}

/** A direct model call has one candidate and no config. */
export function directDecision(model: string, provider: string): Decision {
  return {
    mode: 'sequential',
    attempts: [],
    candidates: [{ model, provider, eligible: true, reason: 'direct' }],
    matchedRule: null,
    variantBucket: null,
    retry: { statuses: new Set(), classes: new Set(), timeout: false },
  };
}

function target(d: Decision): { model: string; provider: string } | null {
  const first = d.attempts[0]?.ref;
  if (first) return { model: first.model, provider: first.vendorAsSent };
  const direct = d.candidates.length === 1 && d.candidates[0].reason === 'direct' ? d.candidates[0] : undefined;
  return direct ? { model: direct.model, provider: direct.provider } : null;
}

/** Key order is fixed here so that serialized envelopes compare byte for byte. */
export function dryRunEnvelope(policy: string, config: ConfigRef | null, d: Decision): DryRunEnvelope {
  return {
    dry_run: {
      policy,
      config: config ? { slug: config.slug, version: config.version } : null,
      target: target(d),
      candidates: d.candidates.map(cleanCandidate),
      matched_rule: d.matchedRule,
      variant_bucket: d.variantBucket,
    },
  };
}

function cleanCandidate(c: CandidateTrace): CandidateTrace {
  const out: CandidateTrace = { model: c.model, provider: c.provider, eligible: c.eligible, reason: c.reason };
  if (c.score !== undefined) out.score = c.score;
  return out;
}

/** `decisionTrace('direct', null, directDecision(model, provider), ...)`, without the decision. */
export function directTrace(
  model: string,
  provider: string,
  attempts: AttemptRecord[],
  servedBy: { model: string; provider: string } | null,
): DecisionTrace {
  return {
    policy: 'direct',
    config: null,
    candidates: [{ model, provider, eligible: true, reason: 'direct' }],
    matched_rule: null,
    variant_bucket: null,
    attempts,
    served_by: servedBy,
  };
}

export function decisionTrace(
  policy: string,
  config: ConfigRef | null,
  d: Decision,
  attempts: AttemptRecord[],
  servedBy: { model: string; provider: string } | null,
  warnings: string[] = [],
): DecisionTrace {
  const t: DecisionTrace = {
    policy,
    config: config ? { slug: config.slug, version: config.version } : null,
    candidates: d.candidates.map(cleanCandidate),
    matched_rule: d.matchedRule,
    variant_bucket: d.variantBucket,
    attempts,
    served_by: servedBy,
  };
  if (warnings.length > 0) t.warnings = warnings;
  return t;
}

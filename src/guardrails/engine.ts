// The parts every stage shares: which policies apply to a call and in what order, the verdict
// record, and one pass of the text checks over one text.

import { compareStrings } from '../util/compare.ts';
import { matchersOf } from './compile.ts';
import { type Finding, type Matcher, resolveOverlaps } from './matcher.ts';
import { applyMasks, type MaskSpan, type PlaceholderBook } from './placeholders.ts';
import {
  checkRunsAt,
  type GuardrailAction,
  type GuardrailCheck,
  type GuardrailCheckType,
  type GuardrailMode,
  type GuardrailPolicy,
  type GuardrailScopeType,
} from './policy.ts';

/** Who is calling: what policy scopes are matched against. */
export interface GuardrailCallScope {
  org_id: string;
  project_id?: string | null;
  api_key_id?: string | null;
  routing_config_id?: string | null;
}

/** Policies apply broadest first: org, then project, API key and routing config. */
export const SCOPE_ORDER: readonly GuardrailScopeType[] = ['org', 'project', 'api_key', 'routing_config'];

function scopeMatches(p: GuardrailPolicy, call: GuardrailCallScope): boolean {
  if (p.org_id !== call.org_id) return false;
  switch (p.scope.type) {
    case 'org':
      return p.scope.id === undefined || p.scope.id === call.org_id;
    case 'project':
      return p.scope.id === call.project_id;
    case 'api_key':
      return p.scope.id === call.api_key_id;
    case 'routing_config':
      return p.scope.id === call.routing_config_id;
  }
}

/**
 * The policies that apply to a call, in evaluation order: by scope (org, project, api_key,
 * routing_config), then oldest first, then by id, so the order never depends on storage order.
 */
export function selectPolicies(policies: readonly GuardrailPolicy[], call: GuardrailCallScope): GuardrailPolicy[] {
  return policies
    .filter((p) => scopeMatches(p, call))
    .sort(
      (a, b) =>
        SCOPE_ORDER.indexOf(a.scope.type) - SCOPE_ORDER.indexOf(b.scope.type) ||
        compareStrings(a.created_at, b.created_at) ||
        compareStrings(a.id, b.id),
    );
}

export interface GuardrailVerdict {
  policy_id: string;
  policy_name: string;
  mode: GuardrailMode;
  /** Position of the check in the policy's `checks`. */
  check_index: number;
  check_type: GuardrailCheckType;
  stage: 'input' | 'output';
  action: GuardrailAction;
  /** False in shadow mode, and where an action could not take effect (a mask on text already streamed). */
  applied: boolean;
  /** Matches per entity (`email: 2`), or the measured size for limits (`tokens: 5120`). */
  counts: Record<string, number>;
  /** Webhook checks: the hook's reason, or why the hook's answer was replaced by `on_error`. */
  reason?: string;
}

/** One check of one policy, ready to run at one stage. */
export interface ActiveCheck {
  policy: GuardrailPolicy;
  index: number;
  check: GuardrailCheck;
  enforce: boolean;
  matchers: Matcher[];
}

export function activeChecks(policies: readonly GuardrailPolicy[], stage: 'input' | 'output'): ActiveCheck[] {
  const out: ActiveCheck[] = [];
  for (const policy of policies) {
    policy.checks.forEach((check, index) => {
      if (checkRunsAt(check, stage))
        out.push({ policy, index, check, enforce: policy.mode === 'enforce', matchers: matchersOf(check) });
    });
  }
  return out;
}

/** Adds up matches per check over all the texts of a call. */
export class VerdictTally {
  private readonly rows = new Map<ActiveCheck, GuardrailVerdict>();
  constructor(private readonly stage: 'input' | 'output') {}

  add(a: ActiveCheck, kind: string, n: number, extra?: Partial<GuardrailVerdict>): GuardrailVerdict {
    let v = this.rows.get(a);
    if (!v) {
      v = {
        policy_id: a.policy.id,
        policy_name: a.policy.name,
        mode: a.policy.mode,
        check_index: a.index,
        check_type: a.check.type,
        stage: this.stage,
        action: a.check.action,
        applied: a.enforce,
        counts: {},
      };
      this.rows.set(a, v);
    }
    if (n > 0) v.counts[kind] = (v.counts[kind] ?? 0) + n;
    if (extra) Object.assign(v, extra);
    return v;
  }

  countFindings(a: ActiveCheck, findings: readonly Finding[]): GuardrailVerdict {
    let v: GuardrailVerdict | undefined;
    for (const f of findings) v = this.add(a, f.kind, 1);
    return v!;
  }

  get(a: ActiveCheck): GuardrailVerdict | undefined {
    return this.rows.get(a);
  }

  verdicts(): GuardrailVerdict[] {
    return [...this.rows.values()];
  }
}

export function findAll(a: ActiveCheck, text: string): Finding[] {
  const fs: Finding[] = [];
  for (const m of a.matchers) m.find(text, fs);
  return resolveOverlaps(fs);
}

export interface TextPassResult {
  text: string;
  /** The first enforcing `block` check that matched, if any. */
  block: ActiveCheck | null;
}

/**
 * Runs the text checks over one text: counts every match, masks what enforcing `mask` checks found
 * and reports the first enforcing `block`. Every check sees the same original text, so the result
 * does not depend on which check masked first. `skip` holds values that must not match (originals
 * restored into an answer).
 */
export function textPass(
  text: string,
  checks: readonly ActiveCheck[],
  tally: VerdictTally,
  book: PlaceholderBook,
  skip?: ReadonlySet<string>,
): TextPassResult {
  const masks: MaskSpan[] = [];
  let block: ActiveCheck | null = null;
  for (const a of checks) {
    if (a.matchers.length === 0) continue;
    let fs = findAll(a, text);
    if (skip && skip.size > 0 && fs.length > 0) fs = fs.filter((f) => !skip.has(text.slice(f.start, f.end)));
    if (fs.length === 0) continue;
    tally.countFindings(a, fs);
    if (!a.enforce) continue;
    if (a.check.action === 'block') block ??= a;
    else if (a.check.action === 'mask') {
      const restore = a.check.type === 'pii' && a.check.restore === true;
      for (const f of fs) masks.push({ ...f, restore });
    }
  }
  const spans = resolveOverlaps(masks) as MaskSpan[];
  return { text: applyMasks(text, spans, book), block };
}

/** The refusal sentence: names the policy, the check and the entity types, never the matched text. */
export function blockMessage(v: GuardrailVerdict): string {
  const kinds = Object.keys(v.counts);
  const what = kinds.length > 0 ? ` (${kinds.join(', ')})` : '';
  const why = v.reason ? `: ${v.reason}` : '';
  return `Blocked by guardrail policy '${v.policy_name}', check ${v.check_index} ${v.check_type}${what}${why}`;
}

// Which rate limits and budgets apply to a call, as the checks of one admission. Pure: the caller
// passes what the live mirrors hold. A budget scoped without a selector applies to each member
// separately ("each end user may spend $5 a day"): its counter key carries the member.
import type { BudgetCheck, RateCheck, RateLimits } from '../ports/counters.ts';
import type { BudgetRecord } from '../store/budgets.ts';
import { isRecord } from '../util/json.ts';
import { modelMatches } from '../util/model-patterns.ts';
import { type PeriodBounds, periodBounds } from './periods.ts';

const parsedLimits = new WeakMap<object, RateLimits | null>();

/** A settings value as rate limits; the same settings object gives the same answer object. */
export function rateLimitsOf(v: unknown): RateLimits | null {
  if (!isRecord(v)) return null;
  const known = parsedLimits.get(v);
  if (known !== undefined) return known;
  const pick = (k: string) => (typeof v[k] === 'number' && (v[k] as number) > 0 ? (v[k] as number) : undefined);
  const out: RateLimits = {};
  const rpm = pick('rpm');
  const tpm = pick('tpm');
  const concurrency = pick('concurrency');
  if (rpm !== undefined) out.rpm = rpm;
  if (tpm !== undefined) out.tpm = tpm;
  if (concurrency !== undefined) out.concurrency = concurrency;
  const limits = rpm === undefined && tpm === undefined && concurrency === undefined ? null : out;
  parsedLimits.set(v, limits);
  return limits;
}

export interface CallIdentity {
  orgId: string;
  projectId: string | null;
  keyId: string;
  endUser: string | null;
  tags: Record<string, string>;
  /** The calling key's metadata (empty for none). */
  keyMetadata: Readonly<Record<string, string>>;
  /** As requested: `openai/gpt-4o`, `gpt-4o`, `@support-bot`. */
  model: string;
}

export interface RateSources {
  key: RateLimits | null;
  project: RateLimits | null;
  /** The project's per-end-user limits (applied when the call names an end user). */
  endUser: RateLimits | null;
}

const hasAny = (l: RateLimits | null): l is RateLimits =>
  l !== null && (l.rpm !== undefined || l.tpm !== undefined || l.concurrency !== undefined);

export function rateChecks(id: CallIdentity, src: RateSources): RateCheck[] {
  const out: RateCheck[] = [];
  if (hasAny(src.key)) out.push({ key: `k:${id.keyId}`, scope: 'api_key', limits: src.key });
  if (id.projectId !== null) {
    if (hasAny(src.project)) out.push({ key: `p:${id.projectId}`, scope: 'project', limits: src.project });
    if (id.endUser !== null && hasAny(src.endUser)) {
      out.push({ key: `u:${id.projectId}:${id.endUser}`, scope: 'end_user', limits: src.endUser });
    }
  }
  return out;
}

export { modelMatches };

// Shared answers for the common cases, so that a call allocates no array for them.
const ONE: readonly string[] = Object.freeze(['']);
const NOBODY: readonly string[] = Object.freeze([]);

/** The members of `b` a call counts against: [''] for a budget with one counter, [] when none. */
export function budgetMembers(b: BudgetRecord, id: CallIdentity): readonly string[] {
  const { scope } = b;
  switch (scope.type) {
    case 'org':
      return ONE;
    case 'project':
      if (scope.id !== undefined) return id.projectId === scope.id ? ONE : NOBODY;
      return id.projectId === null ? NOBODY : [id.projectId];
    case 'api_key':
      if (scope.id !== undefined) return id.keyId === scope.id ? ONE : NOBODY;
      return [id.keyId];
    case 'end_user':
      if (scope.id !== undefined) return id.endUser === scope.id ? ONE : NOBODY;
      return id.endUser === null ? NOBODY : [id.endUser];
    case 'tag':
      return pairMembers(scope.value, id.tags);
    case 'key_metadata':
      return pairMembers(scope.value, id.keyMetadata);
  }
}

/** A `name=value` scope: [''] when the pairs hold it; without one, each pair is a member. */
function pairMembers(value: string | undefined, pairs: Readonly<Record<string, string>>): readonly string[] {
  if (value !== undefined) {
    const eq = value.indexOf('=');
    return pairs[value.slice(0, eq)] === value.slice(eq + 1) ? ONE : NOBODY;
  }
  return Object.entries(pairs).map(([k, v]) => `${k}=${v}`);
}

const periods = new WeakMap<BudgetRecord, PeriodBounds>();

/** The budget's period around `now`, computed once per period (budget records are immutable). */
export function currentPeriod(b: BudgetRecord, now: number): PeriodBounds {
  let p = periods.get(b);
  if (p === undefined || now < p.start || (p.end !== null && now >= p.end)) {
    p = periodBounds(b.period, now, b.createdAt);
    periods.set(b, p);
  }
  return p;
}

export function budgetKey(b: BudgetRecord, member: string, periodStart: number): string {
  return `${b.id}:${member}:${periodStart}`;
}

/** The budget counters a call counts against, and until when that list holds (the nearest period end). */
export function budgetChecks(
  id: CallIdentity,
  budgets: readonly BudgetRecord[],
  now: number,
): { checks: BudgetCheck[]; until: number } {
  const checks: BudgetCheck[] = [];
  let until = Number.POSITIVE_INFINITY;
  for (const b of budgets) {
    if (!modelMatches(b.models, id.model)) continue;
    const members = budgetMembers(b, id);
    if (members.length === 0) continue;
    const { start, end } = currentPeriod(b, now);
    if (end !== null && end < until) until = end;
    for (const member of members) {
      checks.push({
        key: budgetKey(b, member, start),
        budgetId: b.id,
        limitUsd: b.limitUsd,
        block: b.action === 'block',
      });
    }
  }
  return { checks, until };
}

/** The member part of a budget counter key (`<id>:<member>:<start>`). */
export function memberOfKey(key: string): string {
  const first = key.indexOf(':');
  const last = key.lastIndexOf(':');
  return key.slice(first + 1, last);
}

/** The period start (epoch ms) of a budget counter key. */
export function periodStartOfKey(key: string): number {
  return Number(key.slice(key.lastIndexOf(':') + 1));
}

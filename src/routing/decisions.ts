// Aggregates decision traces into the per-config summary of GET /manage/v1/analytics/decisions:
// calls, attempts, how often a fallback was needed, and why candidates were skipped or attempts failed.
import { isRecord } from './config-parse.ts';

export interface ConfigDecisionSummary {
  slug: string;
  policy: string;
  versions: number[];
  requests: number;
  errors: number;
  attempts: number;
  avg_attempts: number;
  /** Calls answered by another attempt than the first. */
  fallbacks: number;
  fallback_rate: number;
  served_by: Record<string, number>;
  variants: Record<string, number>;
  matched_rules: Record<string, number>;
  /** Skip reasons of candidates and failure/rejection reasons of attempts. */
  reasons: Record<string, number>;
}

function bump(m: Record<string, number>, k: string): void {
  m[k] = (m[k] ?? 0) + 1;
}

function attemptReason(a: Record<string, unknown>): string | undefined {
  if (a.outcome === 'rejected' && typeof a.reason === 'string') return `rejected:${a.reason}`;
  if (a.outcome === 'error')
    return typeof a.status === 'number' && a.status === 504 ? 'error:timeout' : `error:${String(a.status)}`;
  return undefined;
}

export function summarizeDecisions(rows: Array<{ status: number; trace: unknown }>): ConfigDecisionSummary[] {
  const by = new Map<string, ConfigDecisionSummary>();
  for (const row of rows) {
    const t = row.trace;
    if (!isRecord(t) || !isRecord(t.config) || typeof t.config.slug !== 'string') continue;
    const slug = t.config.slug;
    let s = by.get(slug);
    if (!s) {
      s = {
        slug,
        policy: String(t.policy ?? ''),
        versions: [],
        requests: 0,
        errors: 0,
        attempts: 0,
        avg_attempts: 0,
        fallbacks: 0,
        fallback_rate: 0,
        served_by: {},
        variants: {},
        matched_rules: {},
        reasons: {},
      };
      by.set(slug, s);
    }
    s.requests++;
    if (row.status >= 400) s.errors++;
    const version = t.config.version;
    if (typeof version === 'number' && !s.versions.includes(version)) s.versions.push(version);
    const attempts = Array.isArray(t.attempts) ? t.attempts.filter(isRecord) : [];
    s.attempts += attempts.length;
    const firstOk = attempts.findIndex((a) => a.outcome === 'success');
    if (firstOk > 0 && t.policy !== 'ensemble') s.fallbacks++;
    if (isRecord(t.served_by)) bump(s.served_by, `${String(t.served_by.provider)}/${String(t.served_by.model)}`);
    if (typeof t.variant_bucket === 'string') bump(s.variants, t.variant_bucket);
    if (typeof t.matched_rule === 'string') bump(s.matched_rules, t.matched_rule);
    for (const a of attempts) {
      const r = attemptReason(a);
      if (r) bump(s.reasons, r);
    }
    for (const c of Array.isArray(t.candidates) ? t.candidates.filter(isRecord) : []) {
      if (c.eligible === false && typeof c.reason === 'string') bump(s.reasons, `skipped:${c.reason}`);
    }
  }
  return [...by.values()].map((s) => ({
    ...s,
    versions: s.versions.sort((a, b) => a - b),
    avg_attempts: s.requests ? Math.round((s.attempts / s.requests) * 100) / 100 : 0,
    fallback_rate: s.requests ? Math.round((s.fallbacks / s.requests) * 10_000) / 10_000 : 0,
  }));
}

// The semantic cache's stats, computed from the request log: one grouped read of a project's rows
// that consulted the cache (or shadowed it), folded into counts, money saved and similarity
// histograms. Kept apart from request-logs.ts, which exposes it as `cacheStats`.
import { sql } from 'kysely';
import type { Db } from './db.ts';

export interface CacheStatsQuery {
  orgId: string;
  projectId: string;
  /** ISO 8601; only rows created at or after it. */
  since?: string;
}

export interface CacheLogStats {
  /** Rows the cache answered. */
  hits: number;
  /** Rows the cache was consulted for and did not answer. */
  misses: number;
  /** What the upstream calls behind the served entries cost, over every hit. */
  savedCostUsd: number;
  /** Hits per whole similarity percent (0..100), ascending; hits without a similarity are left out. */
  hitSimilarity: Array<{ percent: number; count: number }>;
  /**
   * Shadow mode's would-be hits per whole similarity percent, ascending, with how many of them the
   * fresh answer matched: what tells whether a lower threshold would serve right answers.
   */
  shadow: Array<{ percent: number; wouldHit: number; matched: number }>;
}

// FLOOR on both dialects (PostgreSQL's CAST to integer rounds, SQLite's truncates; this build of
// SQLite has the math functions). The epsilon keeps a similarity written as an exact decimal in its
// own percent: 0.58 * 100 is 57.99999999999999 in binary floating point. Literal text only: a bound
// parameter would make PostgreSQL see the SELECT and GROUP BY expressions as different.
const PERCENT = sql<number | null>`floor(cache_similarity * 100 + 0.000000001)`;

/** `sinceId`: the smallest request id of `q.since` (requestIdAt), so the read walks the id index. */
export async function readCacheStats(db: Db, q: CacheStatsQuery, sinceId: string | undefined): Promise<CacheLogStats> {
  let query = db
    .selectFrom('request_logs')
    .select((eb) => [
      'cache',
      'cache_shadow_match',
      PERCENT.as('percent'),
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('saved_cost_usd').as('saved'),
    ])
    .where('org_id', '=', q.orgId)
    .where('project_id', '=', q.projectId)
    .where((eb) => eb.or([eb('cache', 'is not', null), eb('cache_shadow_match', 'is not', null)]));
  if (q.since !== undefined && sinceId !== undefined) {
    query = query.where('id', '>=', sinceId).where('created_at', '>=', q.since);
  }
  const groups = await query.groupBy(['cache', 'cache_shadow_match', PERCENT]).execute();

  const stats: CacheLogStats = { hits: 0, misses: 0, savedCostUsd: 0, hitSimilarity: [], shadow: [] };
  const hitBuckets = new Map<number, number>();
  const shadowBuckets = new Map<number, { wouldHit: number; matched: number }>();
  for (const g of groups) {
    const n = Number(g.n);
    const percent = g.percent === null ? null : Number(g.percent);
    if (g.cache === 'hit') {
      stats.hits += n;
      stats.savedCostUsd += Number(g.saved ?? 0);
      if (percent !== null) hitBuckets.set(percent, (hitBuckets.get(percent) ?? 0) + n);
    } else if (g.cache === 'miss') {
      stats.misses += n;
    }
    if (g.cache_shadow_match !== null && percent !== null) {
      const b = shadowBuckets.get(percent) ?? { wouldHit: 0, matched: 0 };
      b.wouldHit += n;
      if (Number(g.cache_shadow_match) === 1) b.matched += n;
      shadowBuckets.set(percent, b);
    }
  }
  stats.hitSimilarity = [...hitBuckets].sort(([a], [b]) => a - b).map(([percent, count]) => ({ percent, count }));
  stats.shadow = [...shadowBuckets]
    .sort(([a], [b]) => a - b)
    .map(([percent, b]) => ({ percent, wouldHit: b.wouldHit, matched: b.matched }));
  return stats;
}

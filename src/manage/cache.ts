// The semantic cache of a project: its stats (entries now; hits, misses, money saved and the
// similarity of what was served, from the request log) and a purge. Shadow mode's would-be hits are
// folded per similarity band and per candidate threshold with the share whose cached answer differed
// from the fresh one: the measured false-hit rate an operator picks a threshold with.
import { Type } from '@sinclair/typebox';
import type { CacheLogStats } from '../store/request-logs.ts';
import { liveOr404, requireOrgKey } from './access.ts';
import { isoParam } from './logs.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, Timestamp } from './schemas.ts';
import type { Services } from './services.ts';

const TAG = 'cache';
const Params = Type.Object({ project_id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Similarity bands in whole percents [from, to]: the exact tier (100) on its own. */
const BANDS: ReadonlyArray<readonly [number, number]> = [
  [0, 79],
  [80, 84],
  [85, 89],
  [90, 94],
  [95, 97],
  [98, 99],
  [100, 100],
];
const THRESHOLDS = [80, 85, 90, 95, 98, 100];

const Rate = Nullable(
  Type.Number({ description: 'Share of would-be hits whose cached answer differed; null without any' }),
);
const Band = Type.Object({
  min: Type.Number({ description: 'Lowest similarity in the band' }),
  max: Type.Number({ description: 'Highest similarity in the band (below the next band)' }),
  hits: Type.Integer(),
});
const ShadowBand = Type.Object({
  min: Type.Number(),
  max: Type.Number(),
  would_hit: Type.Integer(),
  matched: Type.Integer(),
  false_hit_rate: Rate,
});
const ShadowThreshold = Type.Object({
  threshold: Type.Number({ description: 'A candidate similarity_threshold' }),
  would_hit: Type.Integer({ description: 'Shadowed calls at or above it' }),
  matched: Type.Integer(),
  false_hit_rate: Rate,
});

const CacheStats = Type.Object({
  object: Type.Literal('cache.stats'),
  project_id: Type.String(),
  entries: Type.Integer({ description: 'Live entries stored for the project' }),
  hits: Type.Integer(),
  misses: Type.Integer(),
  hit_rate: Nullable(Type.Number({ description: 'hits / (hits + misses); null before any look-up' })),
  saved_cost_usd: Type.Number({ description: 'What the upstream calls behind the served answers cost' }),
  similarity_histogram: Type.Array(Band, { description: 'Hits by the similarity of the entry served' }),
  shadow: Type.Object(
    {
      bands: Type.Array(ShadowBand),
      by_threshold: Type.Array(ShadowThreshold),
    },
    { description: 'Shadow mode: would-be hits and how many matched the fresh answer' },
  ),
  since: Nullable(Timestamp),
});

const rate = (total: number, matched: number): number | null =>
  total === 0 ? null : Math.round(((total - matched) / total) * 10_000) / 10_000;

function inBand(percent: number, [from, to]: readonly [number, number]): boolean {
  return percent >= from && percent <= to;
}

/** Would-be hits of some similarity percents, how many matched, and the share that did not. */
function shadowCounts(rows: CacheLogStats['shadow']) {
  let wouldHit = 0;
  let matched = 0;
  for (const r of rows) {
    wouldHit += r.wouldHit;
    matched += r.matched;
  }
  return { would_hit: wouldHit, matched, false_hit_rate: rate(wouldHit, matched) };
}

export function statsView(projectId: string, entries: number, s: CacheLogStats, since: string | null) {
  const looked = s.hits + s.misses;
  return {
    object: 'cache.stats' as const,
    project_id: projectId,
    entries,
    hits: s.hits,
    misses: s.misses,
    hit_rate: looked === 0 ? null : Math.round((s.hits / looked) * 10_000) / 10_000,
    saved_cost_usd: Math.round(s.savedCostUsd * 1e9) / 1e9,
    similarity_histogram: BANDS.map((b) => ({
      min: b[0] / 100,
      max: b[1] / 100,
      hits: s.hitSimilarity.filter((h) => inBand(h.percent, b)).reduce((n, h) => n + h.count, 0),
    })),
    shadow: {
      bands: BANDS.map((b) => ({
        min: b[0] / 100,
        max: b[1] / 100,
        ...shadowCounts(s.shadow.filter((r) => inBand(r.percent, b))),
      })),
      by_threshold: THRESHOLDS.map((t) => ({
        threshold: t / 100,
        ...shadowCounts(s.shadow.filter((r) => r.percent >= t)),
      })),
    },
    since,
  };
}

async function projectOf(svc: Services, orgId: string, projectId: string): Promise<void> {
  liveOr404(await svc.stores.projects.get(orgId, projectId), 'project', projectId);
}

const getProjectCache = defineOperation({
  name: 'get_project_cache',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/projects/{project_id}/cache',
  tag: TAG,
  summary:
    "Semantic cache stats of a project: entries, hits, misses, money saved, similarity, shadow mode's false hits",
  input: {
    params: Params,
    query: Type.Object(
      { since: Type.Optional(Type.String({ maxLength: 64, description: 'ISO 8601: count calls from this time on' })) },
      { additionalProperties: false },
    ),
  },
  output: CacheStats,
  async handler({ svc, principal, params, query }) {
    const orgId = requireOrgKey(principal);
    const since = isoParam(query.since, 'since');
    await projectOf(svc, orgId, params.project_id);
    const [entries, stats] = await Promise.all([
      svc.stores.cacheEntries.countLive(params.project_id, Date.now()),
      svc.stores.logs.cacheStats({ orgId, projectId: params.project_id, since }),
    ]);
    return statsView(params.project_id, entries, stats, since ?? null);
  },
});

const purgeProjectCache = defineOperation({
  name: 'purge_project_cache',
  method: 'DELETE',
  role: 'admin',
  path: '/manage/v1/projects/{project_id}/cache',
  tag: TAG,
  summary: 'Delete every semantic cache entry of a project',
  input: { params: Params },
  output: Type.Object({
    object: Type.Literal('cache.purge'),
    project_id: Type.String(),
    deleted: Type.Integer({ description: 'Entries deleted' }),
  }),
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    await projectOf(svc, orgId, params.project_id);
    const deleted = await svc.cache.purge(params.project_id);
    return { object: 'cache.purge' as const, project_id: params.project_id, deleted };
  },
});

export const cacheOperations: Operation[] = [getProjectCache, purgeProjectCache];

// Request log rows (written behind the response in batches by src/logs/writer.ts).

import { encodeTime } from 'ulid';
import { fromJsonText, toJsonText } from '../util/json.ts';
import type { Db } from './db.ts';
import { escapeLike, likeEscaped } from './like.ts';
import { type CacheLogStats, type CacheStatsQuery, readCacheStats } from './request-log-cache-stats.ts';
import { LOG_COLUMNS, type LogValue } from './request-log-sqlite.ts';
import { RollupBatch } from './rollups.ts';
import { createRollupWriter } from './rollups-write.ts';
import type { RequestLogsTable } from './schema.ts';

export type { CacheLogStats, CacheStatsQuery } from './request-log-cache-stats.ts';

export interface RequestLogRow {
  /** The request id, `req_<ulid>`. */
  id: string;
  requestType: string;
  orgId: string;
  projectId: string | null;
  apiKeyId: string | null;
  endUser: string | null;
  tags: Record<string, string> | null;
  traceId: string | null;
  conversationId: string | null;
  modelRequested: string | null;
  modelUsed: string | null;
  provider: string | null;
  credentialId: string | null;
  statusCode: number;
  latencyMs: number;
  ttfbMs: number | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  costUsd: number | null;
  error: unknown;
  decisionTrace: unknown;
  /** Null when the project's retention settings say not to keep bodies. */
  requestBody: string | null;
  responseBody: string | null;
  createdAt: string;
  /** `hit` / `miss` when the project's semantic cache was consulted, else null. */
  cache: 'hit' | 'miss' | null;
  /** The request id this call re-ran (`POST /manage/v1/logs/{id}/replay`). */
  replayOf: string | null;
  /** Cache hits: what the upstream call behind the served entry cost (the hit itself costs 0). */
  savedCostUsd: number;
  /** Similarity of the entry served (1 on the exact tier), or in shadow mode of the would-be hit. */
  cacheSimilarity: number | null;
  /** Shadow mode's would-be hits: whether the fresh answer matched the cached one. */
  cacheShadowMatch: boolean | null;
}

export interface LogFilters {
  orgId: string;
  projectId?: string;
  start?: string;
  end?: string;
  statusClass?: '2xx' | '4xx' | '5xx';
  model?: string;
  provider?: string;
  endUser?: string;
  minLatencyMs?: number;
  /** Every pair must be present in the row's tags. */
  tags?: Record<string, string>;
  traceId?: string;
  conversationId?: string;
  requestType?: string;
}

export interface LatencySample {
  credentialId: string;
  statusCode: number;
  latencyMs: number;
  createdAt: string;
}

export interface RequestLogStore {
  insertMany(rows: RequestLogRow[]): Promise<void>;
  get(orgId: string, id: string): Promise<RequestLogRow | undefined>;
  /** Newest first; `beforeId` is the cursor (the last id of the previous page). */
  list(filters: LogFilters, page: { beforeId?: string; limit: number }): Promise<RequestLogRow[]>;
  latencySamples(credentialIds: string[], sinceIso: string): Promise<LatencySample[]>;
  /**
   * Logged cost since an instant, summed per (member, requested model): what a budget's counters
   * are rebuilt from. `member` groups by one identity column (or the tags text); `where` narrows.
   */
  spendSince(q: SpendQuery): Promise<Array<{ member: string | null; model: string | null; costUsd: number }>>;
  /** One project's semantic-cache stats (hits, misses, money saved, similarity histograms). */
  cacheStats(q: CacheStatsQuery): Promise<CacheLogStats>;
  /**
   * Retention: deletes up to `limit` rows created before `rowsBefore` and empties the bodies of up
   * to `limit` rows created before `bodiesBefore`; returns how many of each it touched.
   */
  sweep(
    cutoffs: { rowsBefore: string; bodiesBefore: string },
    limit: number,
  ): Promise<{ rows: number; bodies: number }>;
}

export interface SpendQuery {
  orgId: string;
  sinceIso: string;
  member: 'project_id' | 'api_key_id' | 'end_user' | 'tags' | null;
  where?: { projectId?: string; apiKeyId?: string; endUser?: string };
}

const flag = (v: boolean | null): number | null => (v === null ? null : v ? 1 : 0);

function toTable(r: RequestLogRow): RequestLogsTable {
  return {
    id: r.id,
    request_type: r.requestType,
    org_id: r.orgId,
    project_id: r.projectId,
    api_key_id: r.apiKeyId,
    end_user: r.endUser,
    tags: toJsonText(r.tags),
    trace_id: r.traceId,
    conversation_id: r.conversationId,
    model_requested: r.modelRequested,
    model_used: r.modelUsed,
    provider: r.provider,
    credential_id: r.credentialId,
    status_code: r.statusCode,
    latency_ms: Math.round(r.latencyMs),
    ttfb_ms: r.ttfbMs === null ? null : Math.round(r.ttfbMs),
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cache_read_tokens: r.cacheReadTokens,
    cache_creation_tokens: r.cacheCreationTokens,
    cost_usd: r.costUsd,
    error: toJsonText(r.error),
    decision_trace: toJsonText(r.decisionTrace),
    request_body: r.requestBody,
    response_body: r.responseBody,
    created_at: r.createdAt,
    // Rows journaled by an older version lack the newer fields.
    cache: r.cache ?? null,
    replay_of: r.replayOf ?? null,
    saved_cost_usd: r.savedCostUsd ?? 0,
    cache_similarity: r.cacheSimilarity ?? null,
    cache_shadow_match: flag(r.cacheShadowMatch ?? null),
  };
}

function fromTable(t: RequestLogsTable): RequestLogRow {
  const tags = fromJsonText(t.tags);
  return {
    id: t.id,
    requestType: t.request_type,
    orgId: t.org_id,
    projectId: t.project_id,
    apiKeyId: t.api_key_id,
    endUser: t.end_user,
    tags: tags === null ? null : (tags as Record<string, string>),
    traceId: t.trace_id,
    conversationId: t.conversation_id,
    modelRequested: t.model_requested,
    modelUsed: t.model_used,
    provider: t.provider,
    credentialId: t.credential_id,
    statusCode: Number(t.status_code),
    latencyMs: Number(t.latency_ms),
    ttfbMs: t.ttfb_ms === null ? null : Number(t.ttfb_ms),
    inputTokens: Number(t.input_tokens),
    outputTokens: Number(t.output_tokens),
    cacheReadTokens: Number(t.cache_read_tokens),
    cacheCreationTokens: Number(t.cache_creation_tokens),
    costUsd: t.cost_usd === null ? null : Number(t.cost_usd),
    error: fromJsonText(t.error),
    decisionTrace: fromJsonText(t.decision_trace),
    requestBody: t.request_body,
    responseBody: t.response_body,
    createdAt: t.created_at,
    cache: t.cache === 'hit' || t.cache === 'miss' ? t.cache : null,
    replayOf: t.replay_of,
    savedCostUsd: Number(t.saved_cost_usd),
    cacheSimilarity: t.cache_similarity === null ? null : Number(t.cache_similarity),
    cacheShadowMatch: t.cache_shadow_match === null ? null : Number(t.cache_shadow_match) === 1,
  };
}

/**
 * The smallest request id of a moment (ISO 8601): ids are `req_` + a ULID, whose first 10
 * characters are the creation time in milliseconds (Crockford base32, lower-cased here).
 */
export function requestIdAt(iso: string): string {
  return `req_${encodeTime(Math.max(0, Date.parse(iso)), 10).toLowerCase()}`;
}

const STATUS_RANGES = { '2xx': [200, 299], '4xx': [400, 499], '5xx': [500, 599] } as const;

// Both dialects cap bound parameters per statement; 31 columns x 200 rows stays well under them.
const INSERT_CHUNK = 200;

/** A row as the values of LOG_COLUMNS, in order (what SQLITE_LOG_INSERT binds). */
export function logValues(r: RequestLogRow): LogValue[] {
  const t = toTable(r);
  return LOG_COLUMNS.map((c) => t[c] as LogValue);
}

export function createRequestLogStore(db: Db): RequestLogStore {
  const rollupWriter = createRollupWriter();
  return {
    async insertMany(rows) {
      // One transaction with the rollups; only the ids RETURNING gives back were new, so a journal
      // replay of committed rows adds nothing to them.
      await db.transaction().execute(async (trx) => {
        const rollups = new RollupBatch();
        for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
          const chunk = rows.slice(i, i + INSERT_CHUNK).map(toTable);
          const stored = await trx
            .insertInto('request_logs')
            .values(chunk)
            .onConflict((oc) => oc.column('id').doNothing())
            .returning('id')
            .execute();
          const ids = new Set(stored.map((r) => r.id));
          for (const t of chunk) if (ids.has(t.id)) rollups.add(t);
        }
        await rollupWriter.apply(trx, rollups);
      });
    },
    async spendSince(q) {
      let query = db
        .selectFrom('request_logs')
        .select((eb) => [eb.fn.sum<number>('cost_usd').as('cost'), 'model_requested'])
        .where('org_id', '=', q.orgId)
        .where('id', '>=', requestIdAt(q.sinceIso))
        .where('created_at', '>=', q.sinceIso)
        .where('cost_usd', '>', 0);
      if (q.where?.projectId !== undefined) query = query.where('project_id', '=', q.where.projectId);
      if (q.where?.apiKeyId !== undefined) query = query.where('api_key_id', '=', q.where.apiKeyId);
      if (q.where?.endUser !== undefined) query = query.where('end_user', '=', q.where.endUser);
      const member = q.member;
      const rows =
        member === null
          ? await query.groupBy('model_requested').execute()
          : await query.select(member).groupBy(['model_requested', member]).execute();
      return rows.map((r) => ({
        member: member === null ? null : ((r as Record<string, unknown>)[member] as string | null),
        model: r.model_requested,
        costUsd: Number(r.cost ?? 0),
      }));
    },
    cacheStats(q) {
      return readCacheStats(db, q, q.since === undefined ? undefined : requestIdAt(q.since));
    },
    async get(orgId, id) {
      const r = await db
        .selectFrom('request_logs')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r ? fromTable(r) : undefined;
    },
    async list(f, page) {
      let q = db.selectFrom('request_logs').selectAll().where('org_id', '=', f.orgId);
      if (page.beforeId !== undefined) q = q.where('id', '<', page.beforeId);
      if (f.projectId !== undefined) q = q.where('project_id', '=', f.projectId);
      // Ids start with their creation time, so a time range is also an id range: the page walks
      // the (org_id, id) index instead of filtering every row of the org.
      if (f.start !== undefined) q = q.where('id', '>=', requestIdAt(f.start)).where('created_at', '>=', f.start);
      if (f.end !== undefined) q = q.where('id', '<', requestIdAt(f.end)).where('created_at', '<', f.end);
      if (f.statusClass !== undefined) {
        const [lo, hi] = STATUS_RANGES[f.statusClass];
        q = q.where('status_code', '>=', lo).where('status_code', '<=', hi);
      }
      if (f.model !== undefined) {
        const m = f.model;
        q = q.where((eb) => eb.or([eb('model_used', '=', m), eb('model_requested', '=', m)]));
      }
      if (f.provider !== undefined) q = q.where('provider', '=', f.provider);
      if (f.endUser !== undefined) q = q.where('end_user', '=', f.endUser);
      if (f.minLatencyMs !== undefined) q = q.where('latency_ms', '>=', f.minLatencyMs);
      if (f.traceId !== undefined) q = q.where('trace_id', '=', f.traceId);
      if (f.conversationId !== undefined) q = q.where('conversation_id', '=', f.conversationId);
      if (f.requestType !== undefined) q = q.where('request_type', '=', f.requestType);
      for (const [k, v] of Object.entries(f.tags ?? {})) {
        // Tags are written with JSON.stringify, so a pair always appears as this exact fragment.
        const fragment = `${JSON.stringify(k)}:${JSON.stringify(v)}`;
        q = q.where(likeEscaped('tags', `%${escapeLike(fragment)}%`));
      }
      const rows = await q.orderBy('id', 'desc').limit(page.limit).execute();
      return rows.map(fromTable);
    },
    async sweep(cutoffs, limit) {
      // Bounded batches by id (time-ordered): each statement touches at most `limit` rows, so the
      // writer is never blocked for long.
      const old = db
        .selectFrom('request_logs')
        .select('id')
        .where('id', '<', requestIdAt(cutoffs.rowsBefore))
        .orderBy('id')
        .limit(limit);
      const deleted = await db.deleteFrom('request_logs').where('id', 'in', old).executeTakeFirst();
      const bodies = db
        .selectFrom('request_logs')
        .select('id')
        .where('id', '<', requestIdAt(cutoffs.bodiesBefore))
        .where((eb) => eb.or([eb('request_body', 'is not', null), eb('response_body', 'is not', null)]))
        .orderBy('id')
        .limit(limit);
      const stripped = await db
        .updateTable('request_logs')
        .set({ request_body: null, response_body: null })
        .where('id', 'in', bodies)
        .executeTakeFirst();
      return { rows: Number(deleted.numDeletedRows), bodies: Number(stripped.numUpdatedRows) };
    },
    async latencySamples(credentialIds, sinceIso) {
      if (credentialIds.length === 0) return [];
      const rows = await db
        .selectFrom('request_logs')
        .select(['credential_id', 'status_code', 'latency_ms', 'created_at'])
        .where('credential_id', 'in', credentialIds)
        .where('created_at', '>=', sinceIso)
        .execute();
      return rows.map((r) => ({
        credentialId: r.credential_id ?? '',
        statusCode: Number(r.status_code),
        latencyMs: Number(r.latency_ms),
        createdAt: r.created_at,
      }));
    },
  };
}

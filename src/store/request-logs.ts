// Request log rows (written behind the response in batches by src/logs/writer.ts).

import { encodeTime } from 'ulid';
import type { Db } from './db.ts';
import { escapeLike, likeEscaped } from './like.ts';
import { getOrgRow } from './org-table.ts';
import { type CacheLogStats, type CacheStatsQuery, readCacheStats } from './request-log-cache-stats.ts';
import { fromLogTable, type RequestLogRow, toLogTable } from './request-log-row.ts';
import { RollupBatch } from './rollups.ts';
import { createRollupWriter } from './rollups-write.ts';

export type { CacheLogStats, CacheStatsQuery } from './request-log-cache-stats.ts';
export { logValues, type RequestLogRow } from './request-log-row.ts';

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
  /** MCP tool calls to the server of this name (their model_requested is `<server>__<tool>`). */
  mcpServer?: string;
  /** MCP tool calls of this tool, by its own or its federated name. */
  tool?: string;
  /** The call's strongest guardrail action (`block`, `mask`, `flag`, `shadow_<action>`). */
  guardrailAction?: string;
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

export function createRequestLogStore(db: Db): RequestLogStore {
  const rollupWriter = createRollupWriter();
  return {
    async insertMany(rows) {
      // One transaction with the rollups; only the ids RETURNING gives back were new, so a journal
      // replay of committed rows adds nothing to them.
      await db.transaction().execute(async (trx) => {
        const rollups = new RollupBatch();
        for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
          const chunk = rows.slice(i, i + INSERT_CHUNK).map(toLogTable);
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
    get: getOrgRow(db, 'request_logs', fromLogTable),
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
      if (f.mcpServer !== undefined) {
        q = q
          .where('request_type', '=', 'mcp_tool_call')
          .where(likeEscaped('model_requested', `${escapeLike(f.mcpServer)}\\_\\_%`));
      }
      if (f.tool !== undefined) {
        const t = f.tool;
        q = q
          .where('request_type', '=', 'mcp_tool_call')
          .where((eb) => eb.or([eb('model_used', '=', t), eb('model_requested', '=', t)]));
      }
      if (f.guardrailAction !== undefined) q = q.where('guardrail_action', '=', f.guardrailAction);
      for (const [k, v] of Object.entries(f.tags ?? {})) {
        // Tags are written with JSON.stringify, so a pair always appears as this exact fragment.
        const fragment = `${JSON.stringify(k)}:${JSON.stringify(v)}`;
        q = q.where(likeEscaped('tags', `%${escapeLike(fragment)}%`));
      }
      const rows = await q.orderBy('id', 'desc').limit(page.limit).execute();
      return rows.map(fromLogTable);
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

// Reads the analytics rollups (never request_logs). What a report does with them is in
// src/logs/analytics-report.ts.
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.ts';

/** The key columns a read can keep apart (each table has only some of them, see RollupQuery.table). */
export type RollupDim = 'project_id' | 'request_type' | 'model' | 'provider' | 'end_user' | 'tagset';

export type RollupTableName = 'rollups' | 'tags' | 'users';

export interface RollupQuery {
  orgId: string;
  projectId?: string;
  /** 3600 or 86400: which rows to read. */
  grain: number;
  /** Unix seconds, [from, to). */
  from: number;
  to: number;
  /** Columns kept apart; every other key column is summed over. */
  dims: readonly RollupDim[];
  /** Only rows of these request types ('' = rolled up before types were kept); undefined = all. */
  requestTypes?: readonly string[];
  /**
   * `rollups`: every row, by model, provider, status; `tags`: rows with tags, by model, provider,
   * tag set; `users`: rows with an end user, by end user and tag set. All three have the project
   * and the request type.
   */
  table: RollupTableName;
}

/** One stored rollup row, reduced to the chosen dims (rows that share them are not merged here). */
export interface RollupCell {
  period: number;
  /** Values of `dims`, in order ('' = none). */
  dims: string[];
  requests: number;
  errors: number;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  /** Latency histogram as stored (rollups-histogram.ts `addHist` reads it). */
  hist: string;
}

export interface AnalyticsStore {
  cells(q: RollupQuery): Promise<RollupCell[]>;
}

type Row = Record<string, string | number | null>;

function where(q: RollupQuery): RawBuilder<unknown> {
  const project = q.projectId === undefined ? sql`` : sql` AND project_id = ${q.projectId}`;
  const types = q.requestTypes === undefined ? sql`` : sql` AND request_type IN (${sql.join([...q.requestTypes])})`;
  return sql`WHERE org_id = ${q.orgId} AND grain = ${q.grain} AND period_start >= ${q.from} AND period_start < ${q.to}${project}${types}`;
}

export function createAnalyticsStore(db: Db): AnalyticsStore {
  return {
    async cells(q) {
      if (q.requestTypes?.length === 0) return [];
      const table = `analytics_${q.table}`;
      const dims = q.dims.map((d, i) => sql`, ${sql.ref(d)} AS ${sql.ref(`d${i}`)}`);
      // Histograms are summed in the caller, so rows are not grouped here: SQL cannot add them up
      // the same way on both dialects, and the rows a report reads are few (one per key and period).
      const { rows } = await sql<Row>`SELECT period_start${sql.join(dims, sql``)}, requests, errors, cost_usd,
          input_tokens, output_tokens, hist FROM ${sql.table(table)} ${where(q)}`.execute(db);
      return rows.map((r) => ({
        period: Number(r.period_start),
        dims: q.dims.map((_, i) => String(r[`d${i}`] ?? '')),
        requests: Number(r.requests),
        errors: Number(r.errors),
        costUsd: Number(r.cost_usd),
        inputTokens: Number(r.input_tokens),
        outputTokens: Number(r.output_tokens),
        hist: String(r.hist),
      }));
    },
  };
}

// The request-log insert of the SQLite log worker (src/logs/sqlite-log-worker.ts). Kept apart from
// request-logs.ts so that the worker thread loads better-sqlite3 and nothing else: importing the
// query builder there would add its start-up time before the first row can be written.
import { sqliteRollups } from './rollups-sqlite.ts';
import type { RequestLogsTable } from './schema.ts';

export type SQLiteHandle = import('better-sqlite3').Database;

/**
 * The insert's columns, in the order of the values it binds. Also the layout of request-log journal
 * lines (request-log-row.ts `logLine`), which a later version replays by position: a new column
 * goes at the end, and none is removed or moved.
 */
export const LOG_COLUMNS: ReadonlyArray<keyof RequestLogsTable> = [
  'id',
  'request_type',
  'org_id',
  'project_id',
  'api_key_id',
  'end_user',
  'tags',
  'trace_id',
  'conversation_id',
  'model_requested',
  'model_used',
  'provider',
  'credential_id',
  'status_code',
  'latency_ms',
  'ttfb_ms',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'cost_usd',
  'error',
  'decision_trace',
  'request_body',
  'response_body',
  'created_at',
  'cache',
  'replay_of',
  'saved_cost_usd',
  'cache_similarity',
  'cache_shadow_match',
  'otel_trace_id',
  'guardrail_action',
];

/** Positional INSERT of one row in LOG_COLUMNS order; a replayed id is ignored. */
const SQLITE_LOG_INSERT = `INSERT INTO request_logs (${LOG_COLUMNS.join(', ')}) VALUES (${LOG_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (id) DO NOTHING`;

export type LogValue = string | number | null;

/**
 * SQLite: one statement prepared once and run per row inside one transaction per batch. Building and
 * preparing a fresh multi-row INSERT through the query builder for every batch was the largest cost
 * of the request path's background work. Used by the request-log worker on its own connection.
 */
export function sqliteLogBatchInsert(sqlite: SQLiteHandle): (rows: LogValue[][]) => void {
  const stmt = sqlite.prepare(SQLITE_LOG_INSERT);
  const rollups = sqliteRollups(sqlite, LOG_COLUMNS);
  return sqlite.transaction((rows: LogValue[][]) => {
    // Only rows this INSERT stored count towards the rollups: a journal replay must not add twice.
    const batch = rollups.batch();
    for (const r of rows) if (stmt.run(r).changes > 0) batch.add(r);
    batch.apply();
  });
}

// The OpenTelemetry trace a call was recorded in (issue 35), so that the dashboard's log page can
// link a row to the operator's tracing backend (SWITCHYARD_TRACE_URL_TEMPLATE). Apart from trace_id,
// which stays the caller's grouping id (X-Svc-Trace-Id). Read per row only: no index.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('request_logs').addColumn('otel_trace_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('request_logs').dropColumn('otel_trace_id').execute();
}

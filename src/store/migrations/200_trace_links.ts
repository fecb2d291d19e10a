// Work done after the call that asked for it keeps that call's W3C traceparent, so its own trace can
// link back to it (OpenTelemetry, issue 35): a batch's create call, a stored response's create call,
// and the call an event came from. Null when tracing is off.
import type { Kysely } from 'kysely';

const TABLES = ['batches', 'responses', 'domain_events'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) await db.schema.alterTable(t).addColumn('trace_link', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) await db.schema.alterTable(t).dropColumn('trace_link').execute();
}

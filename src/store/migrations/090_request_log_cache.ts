// The semantic cache's per-call facts land in the request log, so that its stats (hits, money
// saved, how close the hits were, how often shadow mode's would-be hits matched) are computed from
// the log alone. No new index: the stats read one project's rows through request_logs_project_id
// (org_id, project_id, id) from migration 045, a time range being an id range.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('request_logs')
    .addColumn('saved_cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('request_logs').addColumn('cache_similarity', 'double precision').execute();
  // 0 / 1 like every other flag in the schema (SQLite has no boolean type); null when not in shadow.
  await db.schema.alterTable('request_logs').addColumn('cache_shadow_match', 'integer').execute();
}

// The single migration list for both dialects. A new migration appends one import and one entry.
import { type Kysely, type Migration, type MigrationResultSet, Migrator } from 'kysely';
import * as m001 from './001_initial.ts';
import * as m020 from './020_routing_configs.ts';
import * as m030 from './030_provider_weight.ts';
import * as m040 from './040_analytics_rollups.ts';
import * as m045 from './045_request_log_lookup.ts';
import * as m050 from './050_jobs.ts';
import * as m060 from './060_webhooks.ts';
import * as m070 from './070_budgets.ts';
import * as m080 from './080_cache_entries.ts';
import * as m090 from './090_request_log_cache.ts';
import * as m100 from './100_files.ts';
import * as m110 from './110_batches.ts';
import * as m120 from './120_responses.ts';
import * as m130 from './130_rollup_request_type.ts';
import * as m140 from './140_dim_bounds_per_project.ts';
import * as m150 from './150_api_key_controls.ts';
import * as m160 from './160_audit_log.ts';
import * as m175 from './175_api_key_roles.ts';
import * as m180 from './180_users.ts';
import * as m185 from './185_guardrail_policies.ts';
import * as m190 from './190_request_log_otel_trace.ts';
import * as m195 from './195_config_managed.ts';
import * as m196 from './196_model_settings.ts';
import * as m198 from './198_mcp_servers.ts';
import * as m200 from './200_trace_links.ts';
import * as m205 from './205_request_log_guardrail_action.ts';

const MIGRATIONS: Record<string, Migration> = {
  '001_initial': m001,
  '020_routing_configs': m020,
  '030_provider_weight': m030,
  '040_analytics_rollups': m040,
  '045_request_log_lookup': m045,
  '050_jobs': m050,
  '060_webhooks': m060,
  '070_budgets': m070,
  '080_cache_entries': m080,
  '090_request_log_cache': m090,
  '100_files': m100,
  '110_batches': m110,
  '120_responses': m120,
  '130_rollup_request_type': m130,
  '140_dim_bounds_per_project': m140,
  '150_api_key_controls': m150,
  '160_audit_log': m160,
  '175_api_key_roles': m175,
  '180_users': m180,
  '185_guardrail_policies': m185,
  '190_request_log_otel_trace': m190,
  '195_config_managed': m195,
  '196_model_settings': m196,
  '198_mcp_servers': m198,
  '200_trace_links': m200,
  '205_request_log_guardrail_action': m205,
};

/**
 * `schema` pins kysely's own bookkeeping tables to a PostgreSQL schema: its existence check looks
 * across all schemas, so without it a sibling schema's tables would be mistaken for ours.
 */
export async function migrateToLatest(db: Kysely<unknown>, schema?: string): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    ...(schema !== undefined ? { migrationTableSchema: schema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${reason}`);
  }
  return result;
}

// The strongest guardrail action of a call (issue 34), so that the log can be filtered on it:
// block, mask or flag when an enforcing policy acted; shadow_block, shadow_mask or shadow_flag when
// only shadow policies would have. Null for the calls no verdict concerned, which are most of them:
// the index holds only the others.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('request_logs').addColumn('guardrail_action', 'text').execute();
  await db.schema
    .createIndex('request_logs_guardrail_action')
    .on('request_logs')
    .columns(['org_id', 'guardrail_action', 'id'])
    .where('guardrail_action', 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('request_logs_guardrail_action').ifExists().execute();
  await db.schema.alterTable('request_logs').dropColumn('guardrail_action').execute();
}

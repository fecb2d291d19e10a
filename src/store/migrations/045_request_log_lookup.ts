// The request log becomes readable: newest-first pages per org (and per project) walk an index
// instead of sorting, trace and conversation look-ups are direct, and two columns the log API
// reports are added: whether the semantic cache answered, and which row a replay re-ran.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('request_logs').addColumn('cache', 'text').execute();
  await db.schema.alterTable('request_logs').addColumn('replay_of', 'text').execute();
  await db.schema.createIndex('request_logs_org_id').on('request_logs').columns(['org_id', 'id']).execute();
  await db.schema
    .createIndex('request_logs_project_id')
    .on('request_logs')
    .columns(['org_id', 'project_id', 'id'])
    .execute();
  await db.schema.createIndex('request_logs_trace').on('request_logs').columns(['trace_id']).execute();
  await db.schema.createIndex('request_logs_conversation').on('request_logs').columns(['conversation_id']).execute();
}

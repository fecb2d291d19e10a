// Batches (issue 17), both families. A batch row holds what its API object shows; its items hold
// each request and, once settled, its result line, so a batch survives a restart item by item and
// its output has exactly one line per item. custom_id is not unique here: a line that repeats one is
// an item of its own, settled at once as invalid, so it gets its own line in the error file.
//
// `status` is the batch's own state in its family's words: alpha `validating`, `in_progress`,
// `finalizing`, `completed`, `failed`, `expired`, `cancelling`, `cancelled`; beta `in_progress`,
// `canceling`, `ended`. `mode` is `local` (the gateway's executor) or `passthrough` (a vendor's batch
// API, `upstream_id` through `credential_id`; `upstream` keeps the vendor's last object).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('family', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text')
    .addColumn('completion_window', 'text')
    .addColumn('metadata', 'text')
    .addColumn('input_file_id', 'text')
    .addColumn('output_file_id', 'text')
    .addColumn('error_file_id', 'text')
    .addColumn('errors', 'text')
    .addColumn('model', 'text')
    .addColumn('credential_id', 'text')
    .addColumn('upstream_id', 'text')
    .addColumn('upstream', 'text')
    .addColumn('concurrency', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    .addColumn('errored', 'integer', (c) => c.notNull())
    .addColumn('canceled', 'integer', (c) => c.notNull())
    .addColumn('expired', 'integer', (c) => c.notNull())
    .addColumn('input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('output_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cost_usd', 'double precision', (c) => c.notNull())
    // Set in the transaction that records the batch's cost: it is recorded once, never again.
    .addColumn('cost_recorded_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('in_progress_at', 'bigint')
    .addColumn('finalizing_at', 'bigint')
    .addColumn('cancelling_at', 'bigint')
    .addColumn('ended_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('batches_org_family_created')
    .on('batches')
    .columns(['org_id', 'family', 'created_at', 'id'])
    .execute();
  await db.schema
    .createTable('batch_items')
    .addColumn('batch_id', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('custom_id', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    // pending | running | succeeded | errored | canceled | expired
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('holder', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('model', 'text')
    .addColumn('input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('output_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cost_usd', 'double precision', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('batch_items_pk', ['batch_id', 'idx'])
    .execute();
  await db.schema.createIndex('batch_items_state').on('batch_items').columns(['batch_id', 'state', 'idx']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('batch_items').ifExists().execute();
  await db.schema.dropTable('batches').ifExists().execute();
}

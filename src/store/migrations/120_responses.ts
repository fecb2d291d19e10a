// Stored responses (issue 18): the gateway's record of every response an alpha upstream stored for a
// caller. The id stays the upstream's; the row says which credential and project it belongs to, so
// every follow-up (get, delete, cancel, input_items) reaches the same upstream and nobody else's key
// can address it. `recorded_at` is set once the call's log row (with its cost) is written: a
// background response is logged when it is complete, by a job that survives restarts.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('responses')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('vendor', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text')
    // The credential's key was the caller's own (X-Svc-Provider-Key): follow-ups must bring it again.
    .addColumn('byok', 'integer', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('model_requested', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('background', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('recorded_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .addPrimaryKeyConstraint('responses_pk', ['org_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('responses').ifExists().execute();
}

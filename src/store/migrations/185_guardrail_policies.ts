// Guardrail policies (issue 34): which checks run on the calls a scope covers. Deletion is soft so a
// log row or a webhook event that names a policy id still resolves to a name. The checks are one
// JSON array: they are validated as a whole when written and compiled as a whole by the live mirror,
// and no query ever selects on a single check.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('guardrail_policies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // org | project | api_key | routing_config; scope_id names the project, key or config (null for org).
    .addColumn('scope_type', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text')
    // enforce | shadow
    .addColumn('mode', 'text', (c) => c.notNull())
    // JSON text: the checks, in the order they run.
    .addColumn('checks', 'text', (c) => c.notNull())
    // The signing secret of the policy's webhook checks, sealed with the master key.
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('guardrail_policies_org').on('guardrail_policies').columns(['org_id', 'id']).execute();
  // The mirror's poll reads rows changed since its last tick.
  await db.schema.createIndex('guardrail_policies_updated').on('guardrail_policies').column('updated_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('guardrail_policies').ifExists().execute();
}

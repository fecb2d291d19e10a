// The audit log of management writes (issue 33, item 5) and one chain head per organization.
// Entries are chained by hash; the head row is what appends lock (FOR UPDATE on PostgreSQL; SQLite
// transactions already take the write lock when they begin), so every instance appends to the same
// chain in one order. `anchor_*` is the entry just before the oldest one kept: once retention has
// deleted old entries, the first kept entry still verifies against it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text')
    // JSON text, hashed exactly as stored (jsonb would reorder keys under the hash).
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('request_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_org_seq').on('audit_log').columns(['org_id', 'seq']).unique().execute();
  await db.schema.createIndex('audit_log_org_id').on('audit_log').columns(['org_id', 'id']).execute();
  await db.schema
    .createIndex('audit_log_org_resource')
    .on('audit_log')
    .columns(['org_id', 'resource_type', 'resource_id'])
    .execute();

  await db.schema
    .createTable('audit_chain_heads')
    .addColumn('org_id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('anchor_seq', 'bigint', (c) => c.notNull())
    .addColumn('anchor_hash', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_chain_heads').execute();
  await db.schema.dropTable('audit_log').execute();
}

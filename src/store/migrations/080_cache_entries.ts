// Semantic cache entries (issue 16): what a restart rebuilds the in-process indexes from. One row
// per (tenant, exact key); the vector is the prompt's embedding (base64 of float32, so both dialects
// store it as text) and null for entries that only the exact tier can serve.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cache_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('partition_key', 'text', (c) => c.notNull())
    .addColumn('exact_key', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('embedder', 'text')
    .addColumn('vector', 'text')
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('input_tokens', 'integer', (c) => c.notNull())
    .addColumn('output_tokens', 'integer', (c) => c.notNull())
    .addColumn('cost_usd', 'double precision', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // Least recently used goes first when a project is over its max_entries.
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('cache_entries_exact')
    .on('cache_entries')
    .columns(['tenant', 'exact_key'])
    .unique()
    .execute();
  await db.schema.createIndex('cache_entries_project').on('cache_entries').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('cache_entries_expiry').on('cache_entries').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cache_entries').ifExists().execute();
}

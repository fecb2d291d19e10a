// Written only with kysely's schema builder and portable column types so that the one migration
// set runs unchanged on SQLite and PostgreSQL.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('switchyard_meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('orgs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_updated').on('api_keys').column('updated_at').execute();
  await db.schema.createIndex('api_keys_org').on('api_keys').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('projects_org_slug').on('projects').columns(['org_id', 'slug']).unique().execute();
  await db.schema.createIndex('projects_updated').on('projects').column('updated_at').execute();

  await db.schema
    .createTable('provider_credentials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('vendor', 'text', (c) => c.notNull())
    .addColumn('vendor_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text')
    .addColumn('key_ciphertext', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('provider_credentials_updated').on('provider_credentials').column('updated_at').execute();

  await db.schema
    .createTable('request_logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('request_type', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('api_key_id', 'text')
    .addColumn('end_user', 'text')
    .addColumn('tags', 'text')
    .addColumn('trace_id', 'text')
    .addColumn('conversation_id', 'text')
    .addColumn('model_requested', 'text')
    .addColumn('model_used', 'text')
    .addColumn('provider', 'text')
    .addColumn('credential_id', 'text')
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('ttfb_ms', 'integer')
    .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cache_read_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cache_creation_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cost_usd', 'double precision')
    .addColumn('error', 'text')
    .addColumn('decision_trace', 'text')
    .addColumn('request_body', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('request_logs_org_created')
    .on('request_logs')
    .columns(['org_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('request_logs_credential_created')
    .on('request_logs')
    .columns(['credential_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['request_logs', 'provider_credentials', 'projects', 'api_keys', 'orgs', 'switchyard_meta']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}

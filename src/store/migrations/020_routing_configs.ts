// Routing configs: one row per config (stable id and @slug, pointer to the current version)
// and one row per version. A slug is unique among live configs of an organization only, so a deleted
// config's slug is free at once (partial unique index, supported by both dialects).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('routing_configs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('current_version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema
    .createIndex('routing_configs_live_slug')
    .on('routing_configs')
    .columns(['org_id', 'slug'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema.createIndex('routing_configs_updated').on('routing_configs').column('updated_at').execute();

  await db.schema
    .createTable('routing_config_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('config_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('strategy', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('embedding_dimensions', 'integer')
    .addColumn('restored_from', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('routing_config_versions_config')
    .on('routing_config_versions')
    .columns(['config_id', 'version'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('routing_config_versions').execute();
  await db.schema.dropTable('routing_configs').execute();
}

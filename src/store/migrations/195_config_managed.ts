// Configuration as code (issue 36): which resources a SWITCHYARD_CONFIG file owns. One table beside
// the resources rather than a column on each: the check that refuses API writes to them runs in one
// place for every resource type, and a resource type added later needs no migration of its own.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('config_managed')
    .addColumn('org_id', 'text', (c) => c.notNull())
    // The audit resource type of the resource: provider, project, api_key, routing_config, ...
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    // The name or slug the file matches it by.
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('config_managed_pk', ['org_id', 'resource_type', 'resource_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('config_managed').ifExists().execute();
}

// Model aliases and price overrides (issue 36 item 7), per organization: one row per (org, kind,
// name). A deletion keeps the row (deleted_at set) so the live mirror's poll sees it go; setting the
// same name again revives that row, which is why the unique index covers deleted rows too.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('model_settings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    // alias | price
    .addColumn('kind', 'text', (c) => c.notNull())
    // The alias name, or the priced model as `vendor/model`.
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON text: the alias target (a string) or the price object.
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema
    .createIndex('model_settings_name')
    .unique()
    .on('model_settings')
    .columns(['org_id', 'kind', 'name'])
    .execute();
  // The mirror's poll reads rows changed since its last tick.
  await db.schema.createIndex('model_settings_updated').on('model_settings').column('updated_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('model_settings').ifExists().execute();
}

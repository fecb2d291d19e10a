// Several credentials of one vendor share its traffic in proportion to their weight (0 = standby:
// used only while the others are cooling down). Existing credentials get the default share.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('provider_credentials')
    .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

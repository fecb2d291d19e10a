// Key roles (issue 33 item 2). Existing keys keep what they could do: org-wide keys become admin,
// project keys inference. The column stays nullable so a row written by an instance that predates
// it still reads as its scope's role (api-key-rows.ts) during a rolling upgrade.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('role', 'text').execute();
  await sql`UPDATE api_keys SET role = CASE WHEN project_id IS NULL THEN 'admin' ELSE 'inference' END`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('role').execute();
}

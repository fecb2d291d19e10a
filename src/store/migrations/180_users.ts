// Single sign-on (issue 33, item 4): people who signed in through the OpenID provider, and their
// sessions. Sessions live in the store, not in one process, so a deactivation or role change made on
// one instance reaches every instance's next lookup; the cookie carries only a random token whose
// SHA-256 is kept here.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    // The provider's issuer and `sub`: together they name one person for good (emails change).
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    // 1 once an admin set the role: later sign-ins stop re-deriving it from the provider's claims.
    .addColumn('role_set_by_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('project_id', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text')
    .execute();
  await db.schema.createIndex('users_issuer_subject').on('users').columns(['issuer', 'subject']).unique().execute();
  await db.schema.createIndex('users_org_id').on('users').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('user_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    // SHA-256 of the CSRF token the dashboard echoes on writes; the token itself is only in the browser.
    .addColumn('csrf_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_sessions').execute();
  await db.schema.dropTable('users').execute();
}

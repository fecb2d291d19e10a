// Budgets and rate limits. `budgets` holds the definitions (soft-deleted, so the spend history of a
// deleted budget's id still means something in logs and webhooks); the spend itself lives in the
// counters and is rebuilt from the request log. `budget_alerts` is the idempotency record of
// threshold webhooks: one row per (budget, member, period, mark), so a threshold crossed on two
// instances at once, or crossed again after a restart rebuilt the counters, is announced once.
// API keys get their own rate limits as a JSON column.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('budgets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scope_type', 'text', (c) => c.notNull())
    // The selector: a project, key or end-user id, or a tag's `key=value`; both null = per member.
    .addColumn('scope_id', 'text')
    .addColumn('scope_value', 'text')
    .addColumn('period', 'text', (c) => c.notNull())
    // Same column type as the rollups' cost_usd: a double on PostgreSQL, REAL affinity on SQLite.
    .addColumn('limit_usd', 'double precision', (c) => c.notNull())
    // JSON array of fractions, sorted ascending.
    .addColumn('thresholds', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    // JSON array of model glob patterns; null = every model.
    .addColumn('models', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('budgets_org').on('budgets').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('budget_alerts')
    .addColumn('budget_id', 'text', (c) => c.notNull())
    // '' when the budget has no members (org scope, or a selector naming one entity).
    .addColumn('member', 'text', (c) => c.notNull())
    // ISO start of the period the mark was reached in.
    .addColumn('period_start', 'text', (c) => c.notNull())
    // A threshold as text ('0.8') or 'exceeded'.
    .addColumn('mark', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('budget_alerts_pk', ['budget_id', 'member', 'period_start', 'mark'])
    .execute();

  await db.schema.alterTable('api_keys').addColumn('rate_limits', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('rate_limits').execute();
  await db.schema.dropTable('budget_alerts').ifExists().execute();
  await db.schema.dropTable('budgets').ifExists().execute();
}

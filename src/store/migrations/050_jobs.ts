// The durable job queue (src/store/jobs.ts, src/jobs/). `run_at` (epoch ms) is the one time a
// claim compares: when a queued job becomes due, and while a job runs, when its lease expires. So
// one index (status, run_at) serves both "due" and "lease lost" and the claim stays a range scan.
// The idempotency index is partial: only unfinished jobs keep a (kind, key) pair taken, so a key
// may be used again once its job is done or dead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('fence', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema
    .createIndex('jobs_idempotency')
    .on('jobs')
    .columns(['kind', 'idempotency_key'])
    .unique()
    .where(sql<boolean>`status IN ('queued', 'running')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('jobs').ifExists().execute();
}

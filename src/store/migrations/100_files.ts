// Files (issue 17): every file a caller can address through /alpha/v1/files, wherever it lives.
// `location` says where the bytes are: `gateway` (held by the gateway: the data dir in embedded mode,
// file_chunks with PostgreSQL, so that every instance serves it) or `upstream` (a vendor's files
// API, through `credential_id`). The key is (org, id): upstream ids are the vendor's, and two orgs
// sharing one vendor account may both know the same one.
import { type Kysely, PostgresAdapter } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('files')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    // `disk` or `db` for gateway-held files; null upstream.
    .addColumn('storage', 'text')
    .addColumn('credential_id', 'text')
    .addColumn('vendor', 'text')
    // What made it: `upload`, or `batch_output` / `batch_error` for a local batch's results.
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .addPrimaryKeyConstraint('files_pk', ['org_id', 'id'])
    .execute();
  await db.schema.createIndex('files_org_created').on('files').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema
    .createTable('file_chunks')
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_chunks_pk', ['file_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('file_chunks').ifExists().execute();
  await db.schema.dropTable('files').ifExists().execute();
}

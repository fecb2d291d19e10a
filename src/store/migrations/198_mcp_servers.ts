// MCP tool servers behind /mcp/v1 (issue 37), and the tool patterns an API key may use. Header and
// environment values are sealed with the master key as one JSON object; their names stay readable
// so the management API can say which are set without ever showing a value.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mcp_servers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // streamable_http | sse | stdio
    .addColumn('transport', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('command', 'text')
    // JSON text: the arguments of the command.
    .addColumn('args', 'text', (c) => c.notNull())
    // JSON text: header and env names (values are only in the ciphertext).
    .addColumn('header_names', 'text', (c) => c.notNull())
    .addColumn('env_names', 'text', (c) => c.notNull())
    .addColumn('secrets_ciphertext', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    // JSON text: tool glob patterns, or null for every tool.
    .addColumn('allowed_tools', 'text')
    // JSON text: {rpm?, concurrency?}, or null for none.
    .addColumn('rate_limits', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mcp_servers_org_name').on('mcp_servers').columns(['org_id', 'name']).unique().execute();
  await db.schema.alterTable('api_keys').addColumn('allowed_tools', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('allowed_tools').execute();
  await db.schema.dropTable('mcp_servers').ifExists().execute();
}

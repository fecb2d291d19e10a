// The `mcp_server.health_changed` webhook event: recorded to the outbox when a registered server's
// connection goes up or down, and delivered by the webhooks feature like any other event. Recording
// is fire-and-forget: a tool call must not wait on, or fail with, the database.
import type { Logger } from 'pino';
import type { Db } from '../store/db.ts';
import type { McpServerRecord } from '../store/mcp-servers.ts';
import { recordEvents } from '../store/outbox.ts';
import type { Health } from './upstream.ts';

export function recordHealthChange(
  db: Db,
  logger: Logger,
  server: McpServerRecord,
  previous: Health,
  current: Health,
  reason: string | null,
): void {
  logger.info({ mcp_server: server.name, previous, current, reason }, 'mcp server health changed');
  const data = { id: server.id, name: server.name, transport: server.transport, previous, current, reason };
  recordEvents(db, [{ orgId: server.orgId, type: 'mcp_server.health_changed', data }]).catch((err: unknown) =>
    logger.warn({ err, mcp_server: server.name }, 'could not record mcp_server.health_changed'),
  );
}

// GET /manage/v1/audit-logs/export: the audit list's filters, every matching entry as NDJSON,
// streamed page by page (newest first) like the request log export, so a long history holds one
// page in memory and stops when the client goes away.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { type AuditFilterInput, AuditFilterQuery, auditFilters, auditView } from '../manage/audit-logs.ts';
import { requestIdHeaders } from './request-id.ts';
import { writeChunk } from './stream-write.ts';

const PAGE = 1000;

export function registerAuditExport(app: FastifyInstance): void {
  const query = Type.Object(AuditFilterQuery, { additionalProperties: false });
  app.get('/manage/v1/audit-logs/export', { schema: { querystring: query } }, async (request, reply) => {
    // Bad filters (and a project key) are answered as a normal error before anything is streamed.
    const filters = auditFilters(request.principal, request.query as AuditFilterInput);
    const svc = app.svc;
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'application/x-ndjson',
      'content-disposition': 'attachment; filename="audit-logs.ndjson"',
      ...requestIdHeaders(request.svcId),
    });
    try {
      let beforeId: string | undefined;
      for (;;) {
        const rows = await svc.stores.auditLog.list(filters, { beforeId, limit: PAGE });
        if (rows.length === 0) break;
        const chunk = rows.map((r) => `${JSON.stringify(auditView(r))}\n`).join('');
        if (!(await writeChunk(res, chunk))) return;
        if (rows.length < PAGE) break;
        beforeId = rows[rows.length - 1]?.id;
      }
      res.end();
    } catch (err) {
      svc.logger.error({ err }, 'audit log export failed');
      res.destroy(err instanceof Error ? err : undefined);
    }
  });
}

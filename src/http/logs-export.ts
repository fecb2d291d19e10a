// GET /manage/v1/logs/export?format=ndjson|csv: the log list's filters, every matching row, streamed
// page by page (newest first) so an export of millions of rows holds one page in memory and stops
// as soon as the client goes away.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { logSummary } from '../manage/log-views.ts';
import { type LogFilterInput, LogFilterQuery, logFilters } from '../manage/logs.ts';
import type { RequestLogRow } from '../store/request-logs.ts';
import { requestIdHeaders } from './request-id.ts';
import { writeChunk } from './stream-write.ts';

const PAGE = 1000;

const COLUMNS = [
  'id',
  'created_at',
  'request_type',
  'project_id',
  'model_requested',
  'model_used',
  'provider',
  'status_code',
  'latency_ms',
  'ttfb_ms',
  'input_tokens',
  'output_tokens',
  'cost_usd',
  'end_user',
  'tags',
  'trace_id',
  'conversation_id',
  'cache',
  'replay_of',
  'saved_cost_usd',
  'cache_similarity',
  'cache_shadow_match',
] as const;

/**
 * Spreadsheets run a cell that starts with one of these as a formula. End-user ids, tags, trace ids
 * and model names are the caller's text, so an export would hand an admin's spreadsheet whatever a
 * tenant wrote (`=HYPERLINK(...)`): such a text gets a leading `'`, which the spreadsheet shows as
 * text (OWASP's advice for CSV injection). Numbers are ours and stay numbers.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** RFC 4180 field: quoted when it holds a comma, quote or line break, or when it was neutralised. */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const text = typeof v === 'object' ? JSON.stringify(v) : String(v);
  const s = FORMULA_START.test(text) ? `'${text}` : text;
  return s !== text || /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csvLine(r: RequestLogRow): string {
  const view = logSummary(r);
  return `${COLUMNS.map((c) => csvField(view[c])).join(',')}\r\n`;
}

function ndjsonLine(r: RequestLogRow): string {
  return `${JSON.stringify(logSummary(r))}\n`;
}

export function registerLogExport(app: FastifyInstance): void {
  const query = Type.Object(
    { ...LogFilterQuery, format: Type.Optional(Type.Union([Type.Literal('ndjson'), Type.Literal('csv')])) },
    { additionalProperties: false },
  );
  app.get('/manage/v1/logs/export', { schema: { querystring: query } }, async (request, reply) => {
    const q = request.query as LogFilterInput & { format?: 'ndjson' | 'csv' };
    const format = q.format ?? 'ndjson';
    // Bad filters are answered as a normal 400 before anything is streamed.
    const filters = logFilters(request.principal, q);
    const svc = app.svc;
    await svc.logs.flush();
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
      'content-disposition': `attachment; filename="request-logs.${format}"`,
      ...requestIdHeaders(request.svcId),
    });
    const line = format === 'csv' ? csvLine : ndjsonLine;
    try {
      if (format === 'csv' && !(await writeChunk(res, `${COLUMNS.join(',')}\r\n`))) return;
      let beforeId: string | undefined;
      while (filters) {
        const rows = await svc.stores.logs.list(filters, { beforeId, limit: PAGE });
        if (rows.length === 0) break;
        if (!(await writeChunk(res, rows.map(line).join('')))) return;
        if (rows.length < PAGE) break;
        beforeId = rows[rows.length - 1]?.id;
      }
      res.end();
    } catch (err) {
      // Headers are out: the only honest signal left is a broken response.
      svc.logger.error({ err }, 'request log export failed');
      res.destroy(err instanceof Error ? err : undefined);
    }
  });
}

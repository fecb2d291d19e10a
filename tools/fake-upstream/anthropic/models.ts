// GET /v1/models and /v1/models/{id}: a small fixed catalogue with the API's cursor page shape.
import type { FakeContext } from '../context.ts';
import { sendError } from './errors.ts';

const MODELS = [
  { id: 'claude-opus-4-1-20250805', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z' },
  { id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' },
  { id: 'claude-3-5-haiku-20241022', display_name: 'Claude Haiku 3.5', created_at: '2024-10-22T00:00:00Z' },
].map((m) => ({ type: 'model' as const, ...m }));

export function handleModels(ctx: FakeContext, rest: string) {
  if (ctx.method !== 'GET') return sendError(ctx, 'not_found_error', `${ctx.method} is not supported here`);
  if (rest !== '') {
    const id = decodeURIComponent(rest.slice(1));
    const m = MODELS.find((x) => x.id === id);
    return m ? ctx.sendJson(200, m) : sendError(ctx, 'not_found_error', `model: ${id}`);
  }
  const limit = Math.min(1000, Math.max(1, Number(ctx.query.get('limit') ?? 20) || 20));
  const after = ctx.query.get('after_id');
  const before = ctx.query.get('before_id');
  let from = 0;
  let to = MODELS.length;
  if (after) from = MODELS.findIndex((m) => m.id === after) + 1;
  if (before)
    to = Math.max(
      0,
      MODELS.findIndex((m) => m.id === before),
    );
  const start = before ? Math.max(from, to - limit) : from;
  const data = MODELS.slice(start, Math.min(to, start + limit));
  const hasMore = before ? start > 0 : start + data.length < to;
  ctx.sendJson(200, { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
}

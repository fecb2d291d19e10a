// /v1/messages/batches: create, list, get, cancel, delete (ended only) and JSONL results.
import type { FakeContext } from '../context.ts';
import { parseScript } from '../script.ts';
import { type BatchRecord, type BatchResult, expiresFor, requestCounts, viewBatch } from './batch-state.ts';
import { errorBody, newRequestId, sendError } from './errors.ts';
import { answer } from './messages.ts';
import { isInt, isObj, isStr, randomId } from './util.ts';
import { validateMessages } from './validate.ts';

const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const DAY_MS = 24 * 3600 * 1000;
const MAX_REQUESTS = 100_000;

function store(ctx: FakeContext): Map<string, BatchRecord> {
  return ctx.state.store('anthropic.batches', () => new Map<string, BatchRecord>());
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

function render(ctx: FakeContext, rec: BatchRecord) {
  const view = viewBatch(rec, Date.now(), ctx.state.opts.batchStepMs);
  return {
    id: rec.id,
    type: 'message_batch',
    processing_status: view.status,
    request_counts: requestCounts(rec, view),
    ended_at: iso(view.endedAt),
    created_at: iso(rec.createdAt),
    expires_at: iso(rec.createdAt + DAY_MS),
    archived_at: null,
    cancel_initiated_at: iso(rec.cancelAt),
    results_url:
      view.status === 'ended' ? `${ctx.state.origin}${ctx.prefix}/v1/messages/batches/${rec.id}/results` : null,
  };
}

function outcome(ctx: FakeContext, params: unknown): BatchResult {
  const errored = (type: Parameters<typeof errorBody>[0], message: string): BatchResult => ({
    type: 'errored',
    error: errorBody(type, message),
  });
  const v = validateMessages(params, 'messages');
  if (!v.ok) return errored('invalid_request_error', v.message);
  if (v.req.stream) return errored('invalid_request_error', 'stream: streaming is not supported in message batches');
  const script = parseScript(v.req.model);
  if (expiresFor(v.req.model)) return { type: 'expired' };
  if (script.fail400) return errored('invalid_request_error', 'Invalid request (scripted by fail-400).');
  if (script.fail429) return errored('rate_limit_error', 'Rate limited (scripted by fail-429).');
  if (script.fail500) return errored('api_error', 'Internal server error (scripted by fail-500).');
  return { type: 'succeeded', message: answer(ctx.state, 'anthropic', v.req, script) };
}

async function create(ctx: FakeContext): Promise<void> {
  const body = await ctx.json();
  if (!isObj(body)) return sendError(ctx, 'invalid_request_error', 'There was an issue with the JSON body.');
  const reqs = body.requests;
  if (!Array.isArray(reqs)) return sendError(ctx, 'invalid_request_error', 'requests: Field required');
  if (reqs.length === 0 || reqs.length > MAX_REQUESTS)
    return sendError(ctx, 'invalid_request_error', `requests: a batch holds between 1 and ${MAX_REQUESTS} requests`);
  const seen = new Set<string>();
  for (let i = 0; i < reqs.length; i++) {
    const r = reqs[i];
    if (!isObj(r) || !isStr(r.custom_id) || !CUSTOM_ID.test(r.custom_id))
      return sendError(
        ctx,
        'invalid_request_error',
        `requests.${i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`,
      );
    if (seen.has(r.custom_id))
      return sendError(ctx, 'invalid_request_error', `requests.${i}.custom_id: duplicate custom_id '${r.custom_id}'`);
    seen.add(r.custom_id);
    if (!isObj(r.params)) return sendError(ctx, 'invalid_request_error', `requests.${i}.params: Field required`);
  }
  const rec: BatchRecord = {
    id: randomId('msgbatch_01', 24),
    createdAt: Date.now(),
    outcomes: reqs.map((r) => ({
      custom_id: String((r as { custom_id: string }).custom_id),
      result: outcome(ctx, (r as { params: unknown }).params),
    })),
  };
  store(ctx).set(rec.id, rec);
  ctx.sendJson(200, render(ctx, rec), { 'request-id': newRequestId() });
}

function list(ctx: FakeContext) {
  const q = ctx.query;
  const limitRaw = q.get('limit');
  const limit = limitRaw === null ? 20 : Number(limitRaw);
  if (!isInt(limit) || limit < 1 || limit > 1000)
    return sendError(ctx, 'invalid_request_error', 'limit: Input should be between 1 and 1000');
  // Newest first, like the API; `after_id` pages towards older batches, `before_id` towards newer ones.
  const all = [...store(ctx).values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  const after = q.get('after_id');
  const before = q.get('before_id');
  let page: BatchRecord[];
  let hasMore: boolean;
  if (before) {
    const i = all.findIndex((r) => r.id === before);
    const upTo = i === -1 ? 0 : i;
    page = all.slice(Math.max(0, upTo - limit), upTo);
    hasMore = upTo - limit > 0;
  } else {
    const i = after ? all.findIndex((r) => r.id === after) : -1;
    const from = after ? (i === -1 ? all.length : i + 1) : 0;
    page = all.slice(from, from + limit);
    hasMore = from + limit < all.length;
  }
  const data = page.map((r) => render(ctx, r));
  ctx.sendJson(200, { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
}

function results(ctx: FakeContext, rec: BatchRecord) {
  const view = viewBatch(rec, Date.now(), ctx.state.opts.batchStepMs);
  if (view.status !== 'ended')
    return sendError(
      ctx,
      'invalid_request_error',
      `Batch ${rec.id} is still processing; results are available once it has ended.`,
    );
  const lines = view.results.map((r) => JSON.stringify(r)).join('\n');
  ctx.send(200, lines.length ? `${lines}\n` : '', {
    'content-type': 'application/x-jsonl',
    'request-id': newRequestId(),
  });
}

export async function handleBatches(ctx: FakeContext, rest: string): Promise<void> {
  if (rest === '') {
    if (ctx.method === 'POST') return create(ctx);
    if (ctx.method === 'GET') return list(ctx);
    return sendError(ctx, 'not_found_error', `${ctx.method} is not supported here`);
  }
  const [id, action, extra] = rest.slice(1).split('/');
  const rec = store(ctx).get(id);
  if (!rec || extra !== undefined) return sendError(ctx, 'not_found_error', `message batch '${id}' not found`);
  if (action === undefined && ctx.method === 'GET') return ctx.sendJson(200, render(ctx, rec));
  if (action === undefined && ctx.method === 'DELETE') {
    if (viewBatch(rec, Date.now(), ctx.state.opts.batchStepMs).status !== 'ended')
      return sendError(
        ctx,
        'invalid_request_error',
        `Batch ${rec.id} cannot be deleted while it is still processing; cancel it first.`,
      );
    store(ctx).delete(rec.id);
    return ctx.sendJson(200, { id: rec.id, type: 'message_batch_deleted' });
  }
  if (action === 'cancel' && ctx.method === 'POST') {
    const status = viewBatch(rec, Date.now(), ctx.state.opts.batchStepMs).status;
    if (status === 'in_progress') rec.cancelAt = Date.now();
    return ctx.sendJson(200, render(ctx, rec));
  }
  if (action === 'results' && ctx.method === 'GET') return results(ctx, rec);
  return sendError(ctx, 'not_found_error', `${ctx.method} ${ctx.path} is not supported`);
}

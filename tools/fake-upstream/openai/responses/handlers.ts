// /responses routes: create (sync, stream, background), get (+ stream replay), cancel, delete, input_items.
import type { FakeContext } from '../../context.ts';
import { parseScript, sleep } from '../../script.ts';
import { commonHeaders, type Route } from '../env.ts';
import { invalid, notFound, scriptedFailure, sendError } from '../errors.ts';
import { cursorPage } from '../pagination.ts';
import { isRecord, type Json, str } from '../util.ts';
import { buildResponse, failedResponse, type PreviousTurn, validateResponseRequest } from './build.ts';
import { responseEvents } from './events.ts';
import { currentView, msUntilDone, responseStore, type StoredResponse } from './store.ts';

const missing = (id: string) => notFound(`Response with id '${id}' not found.`);

function previousTurn(prev: StoredResponse | undefined): PreviousTurn | undefined {
  if (!prev) return undefined;
  const calls = new Set<string>();
  const out = Array.isArray(prev.final.output) ? prev.final.output : [];
  for (const o of out)
    if (isRecord(o) && o.type === 'function_call' && typeof o.call_id === 'string') calls.add(o.call_id);
  return { calls };
}

async function writeEvents(ctx: FakeContext, events: Json[], gapMs: number): Promise<void> {
  const sse = ctx.sse(commonHeaders());
  for (const e of events) {
    if (sse.closed) return;
    sse.event(e, String(e.type));
    if (gapMs > 0) await sleep(gapMs);
  }
  sse.end();
}

export const handleCreateResponse: Route = async (ctx, env) => {
  const body = await ctx.json();
  if (env.model !== undefined && isRecord(body)) body.model = env.model;
  const store = responseStore(ctx.state, env.vendor);
  const prevId = isRecord(body) ? str(body.previous_response_id) : undefined;
  const prev = prevId === undefined ? undefined : store.get(prevId);
  if (prevId !== undefined && !prev)
    return sendError(
      ctx,
      invalid(
        `Previous response with id '${prevId}' not found.`,
        'previous_response_id',
        'previous_response_not_found',
      ),
    );
  const problem = validateResponseRequest(body, previousTurn(prev));
  if (problem) return sendError(ctx, problem);
  const req = body as Json;
  const script = parseScript(str(req.model));
  const background = req.background === true;
  if (script.hang && !background) return;
  if (script.slowMs > 0 && !background) await sleep(script.slowMs);
  const fail = scriptedFailure(script);
  if (fail && !(background && script.fail500)) return sendError(ctx, fail);
  const built = buildResponse(req);
  const final = script.fail500 ? failedResponse(built.response) : built.response;
  const stored: StoredResponse = {
    final,
    inputItems: built.inputItems,
    background,
    startedMs: Date.now(),
    never: script.hang,
    cancelled: false,
    midstreamError: script.midstreamError,
    long: script.long,
  };
  if (req.store !== false) store.set(String(final.id), stored);
  if (req.stream === true) {
    const wait = background ? msUntilDone(stored, ctx.state.opts.batchStepMs) : 0;
    if (wait === Number.POSITIVE_INFINITY) return; // streamed background `hang`: no events ever
    if (wait > 0) await sleep(wait);
    const events = responseEvents(final, { background, midstreamError: script.midstreamError, long: script.long });
    return writeEvents(ctx, events, script.long ? 2 : 0);
  }
  ctx.sendJson(200, currentView(stored, ctx.state.opts.batchStepMs), commonHeaders());
};

export const handleGetResponse: Route = async (ctx, env, [id]) => {
  const s = responseStore(ctx.state, env.vendor).get(id);
  if (!s) return sendError(ctx, missing(id));
  const step = ctx.state.opts.batchStepMs;
  if (ctx.query.get('stream') !== 'true') return ctx.sendJson(200, currentView(s, step), commonHeaders());
  const wait = msUntilDone(s, step);
  if (wait === Number.POSITIVE_INFINITY) return; // a hanging background response never finishes its replay
  if (wait > 0) await sleep(wait);
  const view = currentView(s, step);
  const all =
    view.status === 'cancelled'
      ? [{ type: 'response.created', response: view, sequence_number: 0 }]
      : responseEvents(s.final, { background: s.background, midstreamError: s.midstreamError, long: s.long });
  const after = Number(ctx.query.get('starting_after') ?? -1);
  await writeEvents(
    ctx,
    all.filter((e) => Number(e.sequence_number) > after),
    0,
  );
};

export const handleCancelResponse: Route = async (ctx, env, [id]) => {
  const s = responseStore(ctx.state, env.vendor).get(id);
  if (!s) return sendError(ctx, missing(id));
  if (!s.background) return sendError(ctx, invalid('Cannot cancel a synchronous response.'));
  const status = String(currentView(s, ctx.state.opts.batchStepMs).status);
  if (status !== 'queued' && status !== 'in_progress' && status !== 'cancelled')
    return sendError(ctx, invalid(`Cannot cancel a response with status '${status}'.`));
  s.cancelled = true;
  ctx.sendJson(200, currentView(s, ctx.state.opts.batchStepMs), commonHeaders());
};

export const handleDeleteResponse: Route = async (ctx, env, [id]) => {
  if (!responseStore(ctx.state, env.vendor).delete(id)) return sendError(ctx, missing(id));
  ctx.sendJson(200, { id, object: 'response', deleted: true }, commonHeaders());
};

export const handleInputItems: Route = async (ctx, env, [id]) => {
  const s = responseStore(ctx.state, env.vendor).get(id);
  if (!s) return sendError(ctx, missing(id));
  const order = ctx.query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc')
    return sendError(
      ctx,
      invalid(`Invalid value: '${order}'. Supported values are: 'asc' and 'desc'.`, 'order', 'invalid_value'),
    );
  const items = order === 'asc' ? s.inputItems.slice() : s.inputItems.slice().reverse();
  ctx.sendJson(200, cursorPage(items as Array<Json & { id: string }>, ctx.query, 20, 100), commonHeaders());
};

// POST /v1/messages and /v1/messages/count_tokens.
import type { FakeContext, FakeState } from '../context.ts';
import { parseScript, type Script, sleep } from '../script.ts';
import { errorBody, newRequestId, sendError, sendScriptedFailure } from './errors.ts';
import { buildMessage } from './reply.ts';
import { runScript } from './scripted.ts';
import { breakPoint, messageEvents } from './stream.ts';
import { applyCache, segmentsOf, totalTokens } from './tokens.ts';
import type { MessageOut, MessagesRequest } from './types.ts';
import { validateMessages } from './validate.ts';

/** Prompt-cache prefixes seen so far, per namespace (`anthropic`, `bedrock`), in the fake's store. */
export function cacheSet(state: FakeState, namespace: string): Set<string> {
  return state.store(`${namespace}.prompt-cache`, () => new Set<string>());
}

/** Answers a validated request, updating the prompt cache as a side effect. */
export function answer(state: FakeState, namespace: string, req: MessagesRequest, script: Script): MessageOut {
  const cache = applyCache(segmentsOf(req), cacheSet(state, namespace), `${namespace}\u0000${req.model}`);
  return buildMessage(req, script, cache);
}

export function streamPieces(script: Script): number {
  return script.chunks ?? (script.long ? 40 : 4);
}

export async function handleMessages(ctx: FakeContext): Promise<void> {
  const body = await ctx.json();
  if (body === undefined) return sendError(ctx, 'invalid_request_error', 'There was an issue with the JSON body.');
  const v = validateMessages(body, 'messages');
  if (!v.ok) return sendError(ctx, 'invalid_request_error', v.message);
  const script = parseScript(v.req.model);
  if (await runScript(ctx, script, (s) => sendScriptedFailure(ctx, s))) return;
  const msg = answer(ctx.state, 'anthropic', v.req, script);
  const requestId = newRequestId();
  if (!v.req.stream) {
    ctx.sendJson(200, msg, { 'request-id': requestId });
    return;
  }
  const events = messageEvents(msg, streamPieces(script));
  const cut = script.midstreamError || script.midstreamCut ? breakPoint(events) : events.length;
  const sse = ctx.sse({ 'request-id': requestId });
  for (let i = 0; i < cut; i++) {
    if (sse.closed) return;
    sse.event(events[i], events[i].type);
    if (script.paceMs) await sleep(script.paceMs);
  }
  if (script.midstreamCut) {
    await sleep(20);
    sse.destroy();
    return;
  }
  if (script.midstreamError)
    sse.event(errorBody('overloaded_error', 'Overloaded (scripted by midstream-error).', requestId), 'error');
  sse.end();
}

export async function handleCountTokens(ctx: FakeContext): Promise<void> {
  const body = await ctx.json();
  if (body === undefined) return sendError(ctx, 'invalid_request_error', 'There was an issue with the JSON body.');
  const v = validateMessages(body, 'count');
  if (!v.ok) return sendError(ctx, 'invalid_request_error', v.message);
  ctx.sendJson(200, { input_tokens: totalTokens(segmentsOf(v.req)) }, { 'request-id': newRequestId() });
}

// POST /model/{modelId}/converse and /converse-stream.
import { randomUUID } from 'node:crypto';
import { answer } from '../anthropic/messages.ts';
import { runScript } from '../anthropic/scripted.ts';
import type { Json } from '../anthropic/util.ts';
import type { FakeContext } from '../context.ts';
import { parseScript } from '../script.ts';
import { converseResponse, converseToMessages } from './converse-map.ts';
import { converseEvents } from './converse-stream.ts';
import { validateConverse } from './converse-validate.ts';
import { sendAwsError, sendAwsScriptedFailure } from './errors.ts';
import { eventFrame, exceptionFrame, startEventStream } from './eventstream.ts';

/** ConverseStream's usage has cache counters only when the prompt used cache points. */
function usesCachePoints(body: Json): boolean {
  return JSON.stringify([body.system, body.messages, body.toolConfig]).includes('"cachePoint"');
}

export async function handleConverse(ctx: FakeContext, modelId: string, stream: boolean): Promise<void> {
  const started = Date.now();
  const body = await ctx.json();
  const invalid = validateConverse(body);
  if (invalid) return sendAwsError(ctx, 'ValidationException', invalid);
  const script = parseScript(modelId);
  if (await runScript(ctx, script, (s) => sendAwsScriptedFailure(ctx, s))) return;
  const converse = body as Json;
  const cached = usesCachePoints(converse);
  const msg = answer(ctx.state, 'bedrock', converseToMessages(modelId, converse), script);
  const latency = Date.now() - started;
  if (!stream) return ctx.sendJson(200, converseResponse(msg, latency), { 'x-amzn-requestid': randomUUID() });
  const events = converseEvents(msg, script.long ? 40 : 4, cached, latency);
  const out = startEventStream(ctx, { 'x-amzn-requestid': randomUUID() });
  const cut = script.midstreamError ? 2 : events.length;
  for (let i = 0; i < cut; i++) out.write(eventFrame(events[i].type, events[i].payload));
  if (script.midstreamError)
    out.write(
      exceptionFrame('modelStreamErrorException', 'The model stream was interrupted (scripted by midstream-error).'),
    );
  out.end();
}

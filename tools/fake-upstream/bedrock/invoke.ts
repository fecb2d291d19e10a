// POST /model/{modelId}/invoke and /invoke-with-response-stream: Anthropic bodies and embedding models.
import { randomUUID } from 'node:crypto';
import { answer, streamPieces } from '../anthropic/messages.ts';
import { runScript } from '../anthropic/scripted.ts';
import { breakPoint, messageEvents } from '../anthropic/stream.ts';
import { validateMessages } from '../anthropic/validate.ts';
import type { FakeContext } from '../context.ts';
import { parseScript } from '../script.ts';
import { cohereEmbed, type EmbedOutcome, titanEmbed } from './embeddings.ts';
import { sendAwsError, sendAwsScriptedFailure } from './errors.ts';
import { eventFrame, exceptionFrame, startEventStream } from './eventstream.ts';

type Family = 'anthropic' | 'titan' | 'cohere' | undefined;

function familyOf(modelId: string): Family {
  if (modelId.includes('anthropic.') || modelId.includes('claude')) return 'anthropic';
  if (modelId.includes('titan-embed')) return 'titan';
  if (modelId.includes('cohere.embed')) return 'cohere';
  return undefined;
}

function tokenHeaders(input: number, output: number, latency: number): Record<string, string> {
  return {
    'x-amzn-requestid': randomUUID(),
    'x-amzn-bedrock-input-token-count': String(input),
    'x-amzn-bedrock-output-token-count': String(output),
    'x-amzn-bedrock-invocation-latency': String(latency),
  };
}

export async function handleInvoke(ctx: FakeContext, modelId: string, stream: boolean): Promise<void> {
  const started = Date.now();
  const family = familyOf(modelId);
  if (!family)
    return sendAwsError(
      ctx,
      'ValidationException',
      `InvokeModel for '${modelId}' is not emulated: the fake serves Anthropic, Titan embedding and Cohere embedding bodies.`,
    );
  const body = await ctx.json();
  if (body === undefined)
    return sendAwsError(
      ctx,
      'ValidationException',
      'Malformed input request, please reformat your input and try again.',
    );
  const script = parseScript(modelId);
  if (family !== 'anthropic') {
    if (stream) return sendAwsError(ctx, 'ValidationException', 'The model is unsupported for streaming.');
    const r: EmbedOutcome = family === 'titan' ? titanEmbed(modelId, body) : cohereEmbed(modelId, body);
    if (!r.ok) return sendAwsError(ctx, 'ValidationException', r.message);
    if (await runScript(ctx, script, (s) => sendAwsScriptedFailure(ctx, s))) return;
    return ctx.sendJson(200, r.body, tokenHeaders(r.inputTokens, 0, Date.now() - started));
  }
  const v = validateMessages(body, 'bedrock', modelId);
  if (!v.ok) return sendAwsError(ctx, 'ValidationException', v.message);
  if (await runScript(ctx, script, (s) => sendAwsScriptedFailure(ctx, s))) return;
  const msg = answer(ctx.state, 'bedrock', v.req, script);
  const latency = Date.now() - started;
  if (!stream) return ctx.sendJson(200, msg, tokenHeaders(msg.usage.input_tokens, msg.usage.output_tokens, latency));
  // Bedrock relays the Anthropic events without pings; the last one carries invocation metrics.
  const events = messageEvents(msg, streamPieces(script)).filter((e) => e.type !== 'ping');
  const stop = events[events.length - 1];
  stop['amazon-bedrock-invocationMetrics'] = {
    inputTokenCount: msg.usage.input_tokens,
    outputTokenCount: msg.usage.output_tokens,
    invocationLatency: latency,
    firstByteLatency: latency,
  };
  const out = startEventStream(ctx, {
    'x-amzn-requestid': randomUUID(),
    'x-amzn-bedrock-content-type': 'application/json',
  });
  const cut = script.midstreamError ? breakPoint(events) : events.length;
  for (let i = 0; i < cut; i++)
    out.write(eventFrame('chunk', { bytes: Buffer.from(JSON.stringify(events[i])).toString('base64') }));
  if (script.midstreamError)
    out.write(
      exceptionFrame('modelStreamErrorException', 'The model stream was interrupted (scripted by midstream-error).'),
    );
  out.end();
}

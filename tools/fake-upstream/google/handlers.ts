// Handlers for the model-scoped Gemini methods (generate, stream, count, embed).
import { runScript } from '../anthropic/scripted.ts';
import { isObj } from '../anthropic/util.ts';
import type { FakeContext } from '../context.ts';
import { parseScript } from '../script.ts';
import { embedBatch, embedOne } from './embed.ts';
import { googleErrorBody, sendGoogleError, sendGoogleScriptedFailure } from './errors.ts';
import { buildAnswer, promptTokens, responseJson } from './generate.ts';
import { streamChunks } from './stream.ts';
import { validateGenerate } from './validate.ts';

/** A model containing `blocked` has its prompt blocked: no candidates, only promptFeedback. */
function blockedResponse(model: string, prompt: number) {
  return {
    promptFeedback: {
      blockReason: 'SAFETY',
      safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }],
    },
    usageMetadata: { promptTokenCount: prompt, totalTokenCount: prompt },
    modelVersion: model,
  };
}

export async function generate(ctx: FakeContext, model: string, stream: boolean): Promise<void> {
  const body = await ctx.json();
  const v = validateGenerate(body);
  if (!v.ok) return sendGoogleError(ctx, 'INVALID_ARGUMENT', v.message);
  const script = parseScript(model);
  if (await runScript(ctx, script, (s) => sendGoogleScriptedFailure(ctx, s))) return;
  if (model.includes('blocked')) {
    const blocked = blockedResponse(model, promptTokens(v.req));
    if (!stream) return ctx.sendJson(200, blocked);
    const sse = ctx.sse();
    sse.event(blocked);
    return sse.end();
  }
  const answer = buildAnswer(v.req, script);
  if (!stream) return ctx.sendJson(200, responseJson(answer, model));
  const chunks = streamChunks(answer, model, script.long ? 40 : 4);
  const cut = script.midstreamError ? Math.min(2, chunks.length - 1) : chunks.length;
  const failure = googleErrorBody('UNAVAILABLE', 'The model is overloaded (scripted by midstream-error).');
  if (ctx.query.get('alt') !== 'sse') {
    // Without alt=sse the API streams one JSON array instead of SSE.
    const items = chunks.slice(0, cut).map((c) => JSON.stringify(c));
    if (script.midstreamError) items.push(JSON.stringify(failure));
    return ctx.send(200, `[${items.join(',\r\n')}]`, { 'content-type': 'application/json' });
  }
  const sse = ctx.sse();
  for (let i = 0; i < cut; i++) sse.event(chunks[i]);
  if (script.midstreamError) sse.event(failure);
  sse.end();
}

export async function countTokensHandler(ctx: FakeContext): Promise<void> {
  const body = await ctx.json();
  const inner = isObj(body) && isObj(body.generateContentRequest) ? body.generateContentRequest : body;
  const v = validateGenerate(inner);
  if (!v.ok) return sendGoogleError(ctx, 'INVALID_ARGUMENT', v.message);
  const total = promptTokens(v.req);
  ctx.sendJson(200, { totalTokens: total, promptTokensDetails: [{ modality: 'TEXT', tokenCount: total }] });
}

export async function embed(ctx: FakeContext, model: string, batch: boolean): Promise<void> {
  const body = await ctx.json();
  const script = parseScript(model);
  if (await runScript(ctx, script, (s) => sendGoogleScriptedFailure(ctx, s))) return;
  if (batch) {
    const r = embedBatch(model, body);
    if (!r.ok) return sendGoogleError(ctx, 'INVALID_ARGUMENT', r.message);
    return ctx.sendJson(200, { embeddings: r.all.map((values) => ({ values })) });
  }
  const r = embedOne(model, body);
  if (!r.ok) return sendGoogleError(ctx, 'INVALID_ARGUMENT', r.message);
  ctx.sendJson(200, { embedding: { values: r.values } });
}

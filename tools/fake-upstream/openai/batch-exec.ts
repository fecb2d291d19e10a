// Runs one batch input line against the fake's own endpoint logic (pure, no I/O, no delays).
import { parseScript } from '../script.ts';
import { answerChat, chatCompletionJson } from './chat-build.ts';
import { validateChat } from './chat-validate.ts';
import { computeEmbeddings } from './embeddings.ts';
import type { OaiVendor } from './env.ts';
import { errorBody, scriptedFailure } from './errors.ts';
import { buildResponse, validateResponseRequest } from './responses/build.ts';
import { isRecord, type Json, num, str } from './util.ts';

export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'];

export interface LineResult {
  status: number;
  body: Json;
  inputTokens: number;
  outputTokens: number;
}

/** Azure writes endpoints without `/v1`; compare in one form. */
export function normaliseEndpoint(url: string): string {
  return url.startsWith('/v1/') ? url : `/v1${url.startsWith('/') ? '' : '/'}${url}`;
}

export function executeLine(endpoint: string, body: unknown, vendor: OaiVendor): LineResult {
  const model = isRecord(body) ? str(body.model) : undefined;
  const fail = scriptedFailure(parseScript(model));
  if (endpoint === '/v1/embeddings') {
    const out = computeEmbeddings(body, vendor);
    if ('message' in out) return { status: out.status, body: errorBody(out), inputTokens: 0, outputTokens: 0 };
    if (fail) return { status: fail.status, body: errorBody(fail), inputTokens: 0, outputTokens: 0 };
    const usage = isRecord(out.body.usage) ? (num(out.body.usage.prompt_tokens) ?? 0) : 0;
    return { status: 200, body: out.body, inputTokens: usage, outputTokens: 0 };
  }
  if (endpoint === '/v1/responses') {
    const problem = validateResponseRequest(body, undefined) ?? fail;
    if (problem) return { status: problem.status, body: errorBody(problem), inputTokens: 0, outputTokens: 0 };
    const r = buildResponse(body as Json).response;
    const u = isRecord(r.usage) ? r.usage : {};
    return { status: 200, body: r, inputTokens: num(u.input_tokens) ?? 0, outputTokens: num(u.output_tokens) ?? 0 };
  }
  const problem = validateChat(body) ?? fail;
  if (problem) return { status: problem.status, body: errorBody(problem), inputTokens: 0, outputTokens: 0 };
  const a = answerChat(body as Json);
  return {
    status: 200,
    body: chatCompletionJson(a),
    inputTokens: a.usage.prompt_tokens,
    outputTokens: a.usage.completion_tokens,
  };
}

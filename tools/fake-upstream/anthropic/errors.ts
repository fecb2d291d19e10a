// Anthropic error bodies: {type:"error", error:{type, message}, request_id} with the matching status.
import type { FakeContext } from '../context.ts';
import { randomId } from './util.ts';

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

const STATUS: Record<AnthropicErrorType, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

export function newRequestId(): string {
  return randomId('req_011C', 20);
}

export function errorBody(type: AnthropicErrorType, message: string, requestId = newRequestId()) {
  return { type: 'error' as const, error: { type, message }, request_id: requestId };
}

export function sendError(
  ctx: FakeContext,
  type: AnthropicErrorType,
  message: string,
  headers: Record<string, string> = {},
): void {
  const requestId = newRequestId();
  ctx.sendJson(STATUS[type], errorBody(type, message, requestId), { 'request-id': requestId, ...headers });
}

/** Scripted failures (`fail-429`, `fail-500`, `fail-400`) in Anthropic's shape. */
export function sendScriptedFailure(ctx: FakeContext, status: 429 | 500 | 400): void {
  if (status === 429)
    sendError(ctx, 'rate_limit_error', 'Number of requests has exceeded your rate limit (scripted by fail-429).', {
      'retry-after': '1',
    });
  else if (status === 500) sendError(ctx, 'api_error', 'Internal server error (scripted by fail-500).');
  else sendError(ctx, 'invalid_request_error', 'Invalid request (scripted by fail-400).');
}

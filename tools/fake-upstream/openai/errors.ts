// OpenAI error shape `{error:{message,type,param,code}}` and the scripted failures shared by every endpoint.
import type { FakeContext } from '../context.ts';
import type { Script } from '../script.ts';

export interface OaiError {
  status: number;
  message: string;
  type: string;
  param: string | null;
  code: string | null;
  headers?: Record<string, string>;
}

export function invalid(message: string, param: string | null = null, code: string | null = null): OaiError {
  return { status: 400, message, type: 'invalid_request_error', param, code };
}

export function notFound(message: string, param: string | null = null): OaiError {
  return { status: 404, message, type: 'invalid_request_error', param, code: null };
}

export function errorBody(e: OaiError): {
  error: { message: string; type: string; param: string | null; code: string | null };
} {
  return { error: { message: e.message, type: e.type, param: e.param, code: e.code } };
}

export function sendError(ctx: FakeContext, e: OaiError): void {
  ctx.sendJson(e.status, errorBody(e), e.headers);
}

/** The failure a scripted model name asks for, if any (checked after validation, like a real overloaded backend). */
export function scriptedFailure(script: Script): OaiError | undefined {
  if (script.fail429)
    return {
      status: 429,
      message: 'Rate limit reached for requests (scripted by the fake upstream). Please try again in 1s.',
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': '1', 'x-ratelimit-remaining-requests': '0' },
    };
  if (script.fail500)
    return {
      status: 500,
      message: 'The server had an error while processing your request (scripted by the fake upstream).',
      type: 'server_error',
      param: null,
      code: null,
    };
  if (script.fail400) return invalid('Scripted bad request (fail-400 in the model name).', null, 'scripted_failure');
  return undefined;
}

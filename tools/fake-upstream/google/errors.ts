// Google API error bodies: {error:{code, message, status, details?}}.
import type { FakeContext } from '../context.ts';

export type GoogleStatus =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNAVAILABLE';

const CODE: Record<GoogleStatus, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

export function googleErrorBody(status: GoogleStatus, message: string, details?: unknown[]) {
  return { error: { code: CODE[status], message, status, ...(details ? { details } : {}) } };
}

export function sendGoogleError(
  ctx: FakeContext,
  status: GoogleStatus,
  message: string,
  details?: unknown[],
  headers: Record<string, string> = {},
): void {
  ctx.sendJson(CODE[status], googleErrorBody(status, message, details), headers);
}

export function sendGoogleScriptedFailure(ctx: FakeContext, status: 429 | 500 | 400): void {
  if (status === 429)
    sendGoogleError(
      ctx,
      'RESOURCE_EXHAUSTED',
      'Resource has been exhausted (scripted by fail-429).',
      [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }],
      { 'retry-after': '1' },
    );
  else if (status === 500) sendGoogleError(ctx, 'INTERNAL', 'An internal error has occurred (scripted by fail-500).');
  else sendGoogleError(ctx, 'INVALID_ARGUMENT', 'Request contains an invalid argument (scripted by fail-400).');
}

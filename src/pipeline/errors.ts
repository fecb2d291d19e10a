// Error bodies of the two families, and the mapping of upstream failures to the caller's status
// (issue 4: upstream 4xx passed through with the upstream's message, 429 kept with retry-after,
// 5xx or unreachable -> 502, timeout -> 504).
import type { UpstreamErrorInfo } from '../ir/types.ts';
import type { Family } from './chat-attempt.ts';

export interface GatewayError {
  status: number;
  message: string;
  /** Alpha `type`; beta types are derived from the status. */
  type?: string;
  code?: string | null;
  param?: string | null;
  headers?: Record<string, string>;
}

const ALPHA_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

export function betaErrorType(status: number): string {
  if (status === 400 || status === 422) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 402 || status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  return 'api_error';
}

export function errorBody(family: Family, e: GatewayError): Record<string, unknown> {
  if (family === 'beta') return { type: 'error', error: { type: betaErrorType(e.status), message: e.message } };
  return {
    error: {
      message: e.message,
      type: e.type ?? ALPHA_TYPES[e.status] ?? (e.status >= 500 ? 'api_error' : 'invalid_request_error'),
      param: e.param ?? null,
      code: e.code ?? null,
    },
  };
}

export function fromUpstream(info: UpstreamErrorInfo): GatewayError {
  if (info.kind === 'timeout')
    return { status: 504, message: info.message, type: 'api_error', code: 'upstream_timeout' };
  if (info.status === 429) {
    return {
      status: 429,
      message: info.message,
      type: 'rate_limit_error',
      code: info.code ?? 'rate_limit_exceeded',
      headers: info.retryAfter ? { 'retry-after': info.retryAfter } : undefined,
    };
  }
  if (info.status >= 400 && info.status < 500) {
    // The caller's own key is wrong (BYOK) or the request was refused: pass the upstream's words on.
    return { status: info.status, message: info.message, code: info.code ?? null, param: info.param ?? null };
  }
  return { status: 502, message: info.message, type: 'api_error', code: info.code ?? 'upstream_error' };
}

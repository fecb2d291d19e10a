// HTTP status -> the `type` string of a family alpha error body `{error: {message, type, param, code}}`.
import type { UpstreamErrorInfo } from '../../../ir/types.ts';

export function alphaErrorType(status: number): string {
  switch (status) {
    case 400:
    case 413:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'insufficient_quota';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 409:
      return 'conflict_error';
    case 422:
      return 'unprocessable_entity_error';
    case 429:
      return 'rate_limit_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** The error body for an upstream failure, used for JSON errors and mid-stream error records alike. */
export function alphaErrorBody(err: UpstreamErrorInfo): {
  error: { message: string; type: string; param: string | null; code: string | null };
} {
  const status = err.status > 0 ? err.status : err.kind === 'timeout' ? 504 : 502;
  return {
    error: { message: err.message, type: alphaErrorType(status), param: err.param ?? null, code: err.code ?? null },
  };
}

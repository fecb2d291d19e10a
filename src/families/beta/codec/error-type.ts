// HTTP status -> family beta `error.type` (SPEC "Errors", family beta table; 413 and 529 from the
// messages API's own list).
import type { UpstreamErrorInfo } from '../../../ir/types.ts';

export function betaErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

export function betaErrorBody(err: UpstreamErrorInfo): { type: 'error'; error: { type: string; message: string } } {
  const status = err.kind === 'overloaded' ? 529 : err.status > 0 ? err.status : 502;
  return { type: 'error', error: { type: betaErrorType(status), message: err.message } };
}

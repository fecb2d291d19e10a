// Google error body `{error:{code,message,status,details}}` + HTTP status -> normalized error.
import type { UpstreamErrorInfo } from '../../ir/types.ts';
import { arr, isRec, rec, str } from './narrow.ts';

type Kind = UpstreamErrorInfo['kind'];
type Headers = Record<string, string | string[] | undefined>;

const STATUS_KIND: Record<string, Kind> = {
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
  UNAUTHENTICATED: 'authentication',
  PERMISSION_DENIED: 'permission',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limit',
  INTERNAL: 'server',
  UNKNOWN: 'server',
  UNAVAILABLE: 'overloaded',
  DEADLINE_EXCEEDED: 'timeout',
};

function kindFromHttp(status: number): Kind {
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rate_limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function retryAfterOf(headers: Headers): string | undefined {
  const read = (name: string) => {
    const v = headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  };
  const ms = Number(read('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return String(ms / 1000);
  return read('retry-after');
}

export function decodeGeminiError(status: number, bodyText: string, headers: Headers): UpstreamErrorInfo {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  // The non-SSE stream endpoint wraps everything, errors included, in a JSON array.
  const error = rec(rec(Array.isArray(parsed) ? parsed[0] : parsed).error);
  const googleStatus = str(error.status);
  // A bad API key is a 400 INVALID_ARGUMENT with reason API_KEY_INVALID: it is an auth failure.
  const badKey = arr(error.details).some((d) => isRec(d) && d.reason === 'API_KEY_INVALID');
  const kind: Kind = badKey
    ? 'authentication'
    : ((googleStatus ? STATUS_KIND[googleStatus] : undefined) ?? kindFromHttp(status));
  const info: UpstreamErrorInfo = {
    status,
    kind,
    message: str(error.message) || bodyText.slice(0, 500) || `upstream returned ${status}`,
    code: googleStatus ?? null,
    retryable: isRetryableStatus(status),
    raw: bodyText,
  };
  const retryAfter = retryAfterOf(headers);
  if (retryAfter !== undefined) info.retryAfter = retryAfter;
  return info;
}

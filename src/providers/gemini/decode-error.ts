// Google error body `{error:{code,message,status,details}}` + HTTP status -> normalized error.
import { type ErrorKind, upstreamErrorInfo } from '../../errors/upstream.ts';
import type { UpstreamErrorInfo } from '../../ir/types.ts';
import type { HttpHeaders } from '../../util/http-headers.ts';
import { asArray, asRecord, asString, isRecord, tryParseJson } from '../../util/json.ts';

/** Google's canonical status names; anything else falls back to the HTTP status. */
const STATUS_KIND: Record<string, ErrorKind> = {
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

export function decodeGeminiError(status: number, bodyText: string, headers: HttpHeaders): UpstreamErrorInfo {
  const parsed = tryParseJson(bodyText);
  const body = parsed.ok ? parsed.value : undefined;
  // The non-SSE stream endpoint wraps everything, errors included, in a JSON array.
  const error = asRecord(asRecord(Array.isArray(body) ? body[0] : body).error);
  const googleStatus = asString(error.status);
  // A bad API key is a 400 INVALID_ARGUMENT with reason API_KEY_INVALID: it is an auth failure.
  const badKey = asArray(error.details).some((d) => isRecord(d) && d.reason === 'API_KEY_INVALID');
  return upstreamErrorInfo(status, bodyText, headers, {
    message: asString(error.message),
    code: googleStatus ?? null,
    kind: badKey ? 'authentication' : googleStatus ? STATUS_KIND[googleStatus] : undefined,
  });
}

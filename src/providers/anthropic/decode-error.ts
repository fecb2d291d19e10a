// Error bodies: Anthropic `{type:"error",error:{type,message}}`, also what Bedrock InvokeModel answers
// when the model itself refused the body (read by ../bedrock/decode-error.ts).
import { type ErrorDetails, type ErrorKind, upstreamErrorInfo } from '../../errors/upstream.ts';
import type { UpstreamErrorInfo } from '../../ir/types.ts';
import type { HttpHeaders } from '../../util/http-headers.ts';
import { asRecord, asString, isRecord, tryParseJson } from '../../util/json.ts';

/** The messages API's error types and the status each one comes with. */
const ANTHROPIC_TYPES: Record<string, { kind: ErrorKind; status: number }> = {
  invalid_request_error: { kind: 'invalid_request', status: 400 },
  authentication_error: { kind: 'authentication', status: 401 },
  billing_error: { kind: 'permission', status: 402 },
  permission_error: { kind: 'permission', status: 403 },
  not_found_error: { kind: 'not_found', status: 404 },
  request_too_large: { kind: 'invalid_request', status: 413 },
  rate_limit_error: { kind: 'rate_limit', status: 429 },
  api_error: { kind: 'server', status: 500 },
  timeout_error: { kind: 'timeout', status: 504 },
  overloaded_error: { kind: 'overloaded', status: 529 },
};

export function anthropicDetails(body: unknown): ErrorDetails | undefined {
  const e = asRecord(body).error;
  if (!isRecord(e)) return undefined;
  const type = asString(e.type);
  return { message: asString(e.message), code: type ?? null, kind: type ? ANTHROPIC_TYPES[type]?.kind : undefined };
}

export function decodeAnthropicError(status: number, bodyText: string, headers: HttpHeaders): UpstreamErrorInfo {
  const parsed = tryParseJson(bodyText);
  const details = parsed.ok ? anthropicDetails(parsed.value) : undefined;
  return upstreamErrorInfo(
    status,
    bodyText,
    headers,
    details ?? { message: parsed.ok ? asString(asRecord(parsed.value).message) : undefined },
  );
}

/** `event: error` mid-stream: the HTTP status was 200, so the status comes from the error type. */
export function decodeAnthropicStreamError(body: unknown, rawText: string): UpstreamErrorInfo {
  const details = anthropicDetails(body) ?? {};
  const status = (details.code && ANTHROPIC_TYPES[details.code]?.status) || 500;
  return upstreamErrorInfo(status, rawText, {}, details);
}

// Bedrock errors: body `{message}` (sometimes `{Message}`), the exception name in the
// `x-amzn-ErrorType` header (`Name:http://internal.amazon.com/...`) or the body's `__type`
// (`com.amazon.coral...#Name`), or as the `:exception-type` of an event-stream frame (camelCase there).
// Both Bedrock wires read this table: Converse, and InvokeModel with Anthropic bodies.
import { type ErrorKind, upstreamErrorInfo } from '../../errors/upstream.ts';
import type { UpstreamErrorInfo } from '../../ir/types.ts';
import { type HttpHeaders, headerValue } from '../../util/http-headers.ts';
import { asRecord, asString, tryParseJson } from '../../util/json.ts';
import { anthropicDetails } from '../anthropic/decode-error.ts';

/**
 * Bedrock Runtime exceptions (API reference, "Errors" of Converse, ConverseStream, InvokeModel and
 * InvokeModelWithResponseStream, plus the common AWS auth errors), keyed by lower-cased name. The status
 * is the one AWS documents, used when a stream frame carries the name without an HTTP status.
 */
const EXCEPTIONS: Record<string, { kind: ErrorKind; status: number }> = {
  validationexception: { kind: 'invalid_request', status: 400 },
  servicequotaexceededexception: { kind: 'rate_limit', status: 400 },
  accessdeniedexception: { kind: 'permission', status: 403 },
  unrecognizedclientexception: { kind: 'authentication', status: 403 },
  invalidsignatureexception: { kind: 'authentication', status: 403 },
  expiredtokenexception: { kind: 'authentication', status: 403 },
  incompletesignatureexception: { kind: 'authentication', status: 403 },
  missingauthenticationtokenexception: { kind: 'authentication', status: 403 },
  resourcenotfoundexception: { kind: 'not_found', status: 404 },
  modeltimeoutexception: { kind: 'timeout', status: 408 },
  conflictexception: { kind: 'invalid_request', status: 409 },
  modelerrorexception: { kind: 'server', status: 424 },
  modelstreamerrorexception: { kind: 'server', status: 424 },
  throttlingexception: { kind: 'rate_limit', status: 429 },
  // "Not ready to serve inference requests", retried by the AWS SDK: a capacity condition.
  modelnotreadyexception: { kind: 'overloaded', status: 429 },
  internalserverexception: { kind: 'server', status: 500 },
  serviceunavailableexception: { kind: 'overloaded', status: 503 },
};

/** `Name:http://...` or `com.amazon.coral...#Name` -> `Name`. */
export function exceptionName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const name = raw.split(':')[0].split('#').pop()?.trim();
  return name || undefined;
}

function known(name: string | undefined): { kind: ErrorKind; status: number } | undefined {
  return name ? EXCEPTIONS[name.toLowerCase()] : undefined;
}

/** An AWS-shaped error answer (any Bedrock Runtime operation). */
export function decodeBedrockError(status: number, bodyText: string, headers: HttpHeaders): UpstreamErrorInfo {
  const parsed = tryParseJson(bodyText);
  const body = asRecord(parsed.ok ? parsed.value : undefined);
  const name = exceptionName(headerValue(headers, 'x-amzn-errortype')) ?? exceptionName(asString(body.__type));
  const message = asString(body.message) ?? asString(body.Message);
  return upstreamErrorInfo(status, bodyText, headers, {
    // A JSON or empty body without a message says no more than the exception name.
    message: message ?? (parsed.ok || bodyText.trim() === '' ? name : undefined),
    code: name ?? null,
    kind: known(name)?.kind,
  });
}

/**
 * An exception frame inside an event stream (`:message-type: exception`, the name in
 * `:exception-type`, e.g. `throttlingException`, the payload `{"message": ...}`). The HTTP status was
 * 200, so the status comes from the name; an unknown name is a 500.
 */
export function bedrockStreamException(eventName: string | undefined, data: string): UpstreamErrorInfo {
  const headers: HttpHeaders = eventName ? { 'x-amzn-errortype': eventName } : {};
  return decodeBedrockError(known(eventName)?.status ?? 500, data, headers);
}

/** Bedrock InvokeModel with an Anthropic body: an Anthropic-shaped answer wins; anything else is AWS's. */
export function decodeInvokeAnthropicError(status: number, bodyText: string, headers: HttpHeaders): UpstreamErrorInfo {
  const parsed = tryParseJson(bodyText);
  const details = parsed.ok ? anthropicDetails(parsed.value) : undefined;
  return details
    ? upstreamErrorInfo(status, bodyText, headers, details)
    : decodeBedrockError(status, bodyText, headers);
}

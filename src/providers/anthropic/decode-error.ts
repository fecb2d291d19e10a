// Error bodies: Anthropic `{type:"error",error:{type,message}}` and, for Bedrock InvokeModel,
// AWS `{message}` with the class in the `x-amzn-ErrorType` header (or an exception frame mid-stream).
import type { UpstreamErrorInfo } from '../../ir/types.ts';
import {
  buildErrorInfo,
  type ErrorDetails,
  type ErrorKind,
  header,
  type UpstreamHeaders,
} from '../openai-compatible/http-errors.ts';
import { isObj, obj, str, tryParseJson } from '../openai-compatible/narrow.ts';

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

function anthropicDetails(body: unknown): ErrorDetails | undefined {
  const e = obj(body).error;
  if (!isObj(e)) return undefined;
  const type = str(e.type);
  return { message: str(e.message), code: type ?? null, kind: type ? ANTHROPIC_TYPES[type]?.kind : undefined };
}

export function decodeAnthropicError(status: number, bodyText: string, headers: UpstreamHeaders): UpstreamErrorInfo {
  const parsed = tryParseJson(bodyText);
  const details = parsed.ok ? anthropicDetails(parsed.value) : undefined;
  return buildErrorInfo(
    status,
    bodyText,
    headers,
    details ?? { message: parsed.ok ? str(obj(parsed.value).message) : undefined },
  );
}

/** `event: error` mid-stream: the HTTP status was 200, so the status comes from the error type. */
export function decodeAnthropicStreamError(body: unknown, rawText: string): UpstreamErrorInfo {
  const details = anthropicDetails(body) ?? {};
  const status = (details.code && ANTHROPIC_TYPES[details.code]?.status) || 500;
  return buildErrorInfo(status, rawText, {}, details);
}

const AWS_KINDS: Record<string, { kind: ErrorKind; status: number }> = {
  validationexception: { kind: 'invalid_request', status: 400 },
  servicequotaexceededexception: { kind: 'rate_limit', status: 400 },
  accessdeniedexception: { kind: 'permission', status: 403 },
  unrecognizedclientexception: { kind: 'authentication', status: 403 },
  invalidsignatureexception: { kind: 'authentication', status: 403 },
  expiredtokenexception: { kind: 'authentication', status: 403 },
  resourcenotfoundexception: { kind: 'not_found', status: 404 },
  modeltimeoutexception: { kind: 'timeout', status: 408 },
  modelerrorexception: { kind: 'server', status: 424 },
  modelstreamerrorexception: { kind: 'server', status: 424 },
  throttlingexception: { kind: 'rate_limit', status: 429 },
  modelnotreadyexception: { kind: 'overloaded', status: 429 },
  internalserverexception: { kind: 'server', status: 500 },
  serviceunavailableexception: { kind: 'overloaded', status: 503 },
};

/** `ThrottlingException:http://internal.amazon.com/coral/...` -> `ThrottlingException`. */
function awsErrorName(raw: string | undefined): string | undefined {
  return raw?.split(':')[0]?.trim() || undefined;
}

export function decodeBedrockError(status: number, bodyText: string, headers: UpstreamHeaders): UpstreamErrorInfo {
  const parsed = tryParseJson(bodyText);
  const body = parsed.ok ? parsed.value : undefined;
  const anthropic = anthropicDetails(body);
  if (anthropic) return buildErrorInfo(status, bodyText, headers, anthropic);
  const name = awsErrorName(header(headers, 'x-amzn-errortype')) ?? str(obj(body).__type)?.split('#').pop();
  const b = obj(body);
  return buildErrorInfo(status, bodyText, headers, {
    message: str(b.message) ?? str(b.Message),
    code: name ?? null,
    kind: name ? AWS_KINDS[name.toLowerCase()]?.kind : undefined,
  });
}

/** An exception frame inside invoke-with-response-stream. */
export function decodeBedrockStreamException(name: string | undefined, data: string): UpstreamErrorInfo {
  const parsed = tryParseJson(data);
  const b = parsed.ok ? obj(parsed.value) : {};
  const known = name ? AWS_KINDS[name.toLowerCase()] : undefined;
  return buildErrorInfo(
    known?.status ?? 500,
    data,
    {},
    {
      message: str(b.message) ?? str(b.Message) ?? name,
      code: name ?? null,
      kind: known?.kind,
    },
  );
}

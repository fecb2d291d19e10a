// Bedrock errors: body `{message}` (sometimes `{Message}`), the exception name in the
// `x-amzn-ErrorType` header (`Name:http://internal.amazon.com/...`), or as the `:exception-type` of
// a stream frame (camelCase there).
import type { UpstreamErrorInfo } from '../../ir/types.ts';
import { rec, str } from './narrow.ts';

type Kind = UpstreamErrorInfo['kind'];
type Headers = Record<string, string | string[] | undefined>;

interface Known {
  status: number;
  kind: Kind;
  retryable: boolean;
}

const EXCEPTIONS: Record<string, Known> = {
  validationexception: { status: 400, kind: 'invalid_request', retryable: false },
  servicequotaexceededexception: { status: 400, kind: 'rate_limit', retryable: false },
  accessdeniedexception: { status: 403, kind: 'permission', retryable: false },
  unrecognizedclientexception: { status: 403, kind: 'authentication', retryable: false },
  invalidsignatureexception: { status: 403, kind: 'authentication', retryable: false },
  expiredtokenexception: { status: 403, kind: 'authentication', retryable: false },
  incompletesignatureexception: { status: 403, kind: 'authentication', retryable: false },
  missingauthenticationtokenexception: { status: 403, kind: 'authentication', retryable: false },
  resourcenotfoundexception: { status: 404, kind: 'not_found', retryable: false },
  modeltimeoutexception: { status: 408, kind: 'timeout', retryable: true },
  conflictexception: { status: 409, kind: 'invalid_request', retryable: true },
  modelerrorexception: { status: 424, kind: 'server', retryable: false },
  modelstreamerrorexception: { status: 424, kind: 'server', retryable: false },
  throttlingexception: { status: 429, kind: 'rate_limit', retryable: true },
  modelnotreadyexception: { status: 429, kind: 'server', retryable: true },
  internalserverexception: { status: 500, kind: 'server', retryable: true },
  serviceunavailableexception: { status: 503, kind: 'server', retryable: true },
};

function kindFromHttp(status: number): Kind {
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function header(headers: Headers, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** `Name:http://...` or `com.amazon.coral...#Name` -> `Name`. */
export function exceptionName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const name = raw.split(':')[0].split('#').pop()?.trim();
  return name || undefined;
}

function parseBody(bodyText: string): { message?: string; type?: string } {
  try {
    const body = rec(JSON.parse(bodyText));
    return { message: str(body.message) ?? str(body.Message), type: str(body.__type) };
  } catch {
    return {};
  }
}

export function decodeBedrockError(status: number, bodyText: string, headers: Headers): UpstreamErrorInfo {
  const body = parseBody(bodyText);
  const name = exceptionName(header(headers, 'x-amzn-errortype')) ?? exceptionName(body.type);
  const known = name ? EXCEPTIONS[name.toLowerCase()] : undefined;
  const info: UpstreamErrorInfo = {
    status,
    kind: known?.kind ?? kindFromHttp(status),
    message: body.message || bodyText.slice(0, 500) || name || `upstream returned ${status}`,
    code: name ?? null,
    retryable: isRetryableStatus(status) || (known?.retryable ?? false),
    raw: bodyText,
  };
  const retryMs = Number(header(headers, 'retry-after-ms'));
  const retryAfter = Number.isFinite(retryMs) && retryMs > 0 ? String(retryMs / 1000) : header(headers, 'retry-after');
  if (retryAfter !== undefined) info.retryAfter = retryAfter;
  return info;
}

/** An exception frame inside an event stream: no HTTP status of its own, so it comes from the name. */
export function decodeBedrockStreamException(name: string, bodyText: string): UpstreamErrorInfo {
  const status = EXCEPTIONS[name.toLowerCase()]?.status ?? 500;
  return decodeBedrockError(status, bodyText, { 'x-amzn-errortype': name });
}

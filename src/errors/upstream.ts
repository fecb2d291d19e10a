// An upstream's failed HTTP answer, read the same way for every vendor: the status -> error kind table,
// the retry rule and `retry-after`. Each wire's decoder (providers/<wire>/decode-error.ts) reads only
// its own body shape and may name a more precise kind; everything else comes from here.
import type { UpstreamErrorInfo } from '../ir/types.ts';
import { type HttpHeaders, headerValue } from '../util/http-headers.ts';

export type ErrorKind = UpstreamErrorInfo['kind'];

/**
 * What a status means on every wire we speak (OpenAI, Anthropic, Google and AWS document the same
 * classes): 402 is a billing refusal, 408 and 504 are timeouts, 503 ("overloaded" at OpenAI,
 * UNAVAILABLE at Google) and Anthropic's 529 are capacity, any other 5xx a server fault. Every other
 * 4xx (400, 409 conflict, 413 too large, 422) is the request's own problem.
 */
export function kindForStatus(status: number): ErrorKind {
  if (status === 401) return 'authentication';
  if (status === 402 || status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rate_limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

/** The statuses the vendors' own SDKs retry: 408, 409 (lock or concurrent change), 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Seconds as a decimal string; `retry-after-ms` is more precise so it wins; an HTTP date counts down from now. */
export function retryAfterSeconds(headers: HttpHeaders): string | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return String(Number(ms) / 1000);
  const raw = headerValue(headers, 'retry-after');
  if (raw === undefined || raw.trim() === '') return undefined;
  if (Number.isFinite(Number(raw))) return String(Number(raw));
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return String(Math.max(0, Math.ceil((at - Date.now()) / 1000)));
}

/** What a wire's decoder read from the body. */
export interface ErrorDetails {
  message?: string;
  code?: string | null;
  param?: string | null;
  /** Set when the body names a class more precisely than the status does. */
  kind?: ErrorKind;
}

/**
 * The normalized error for an upstream answer. `x-should-retry` (sent by OpenAI and Anthropic, honoured
 * by their SDKs) overrules the status-based retry decision.
 */
export function upstreamErrorInfo(
  status: number,
  bodyText: string,
  headers: HttpHeaders,
  details: ErrorDetails,
): UpstreamErrorInfo {
  const should = headerValue(headers, 'x-should-retry');
  const info: UpstreamErrorInfo = {
    status,
    kind: details.kind ?? kindForStatus(status),
    message: details.message || fallbackMessage(status, bodyText),
    retryable: should === 'true' ? true : should === 'false' ? false : isRetryableStatus(status),
    raw: bodyText,
  };
  if (details.code !== undefined) info.code = details.code;
  if (details.param !== undefined) info.param = details.param;
  const after = retryAfterSeconds(headers);
  if (after !== undefined) info.retryAfter = after;
  return info;
}

/** A short plain-text body says more than the status; an HTML error page does not. */
function fallbackMessage(status: number, bodyText: string): string {
  const text = bodyText.trim();
  if (text && text.length <= 500 && !text.startsWith('<')) return text;
  return `upstream returned HTTP ${status}`;
}

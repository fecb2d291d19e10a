// Status -> error class and retry rules shared by every wire this folder and ../anthropic speak.
import type { UpstreamErrorInfo } from '../../ir/types.ts';

export type UpstreamHeaders = Record<string, string | string[] | undefined>;
export type ErrorKind = UpstreamErrorInfo['kind'];

export function header(headers: UpstreamHeaders, name: string): string | undefined {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== want || v === undefined) continue;
    return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

export function kindForStatus(status: number): ErrorKind {
  if (status === 401) return 'authentication';
  if (status === 402 || status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rate_limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500 || status === 409) return 'server';
  return 'invalid_request';
}

export function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Seconds as a decimal string; `retry-after-ms` is more precise so it wins. */
export function retryAfter(headers: UpstreamHeaders): string | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return String(Number(ms) / 1000);
  const raw = header(headers, 'retry-after');
  if (raw === undefined || raw.trim() === '') return undefined;
  if (Number.isFinite(Number(raw))) return String(Number(raw));
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return String(Math.max(0, Math.ceil((at - Date.now()) / 1000)));
}

export interface ErrorDetails {
  message?: string;
  code?: string | null;
  param?: string | null;
  /** Set when the body names a class more precisely than the status does. */
  kind?: ErrorKind;
}

export function buildErrorInfo(
  status: number,
  bodyText: string,
  headers: UpstreamHeaders,
  details: ErrorDetails,
): UpstreamErrorInfo {
  // The SDKs let the upstream overrule the status-based retry decision with this header.
  const should = header(headers, 'x-should-retry');
  const retryable = should === 'true' ? true : should === 'false' ? false : retryableStatus(status);
  const info: UpstreamErrorInfo = {
    status,
    kind: details.kind ?? kindForStatus(status),
    message: details.message || fallbackMessage(status, bodyText),
    retryable,
    raw: bodyText,
  };
  if (details.code !== undefined) info.code = details.code;
  if (details.param !== undefined) info.param = details.param;
  const after = retryAfter(headers);
  if (after !== undefined) info.retryAfter = after;
  return info;
}

function fallbackMessage(status: number, bodyText: string): string {
  const text = bodyText.trim();
  if (text && text.length <= 500 && !text.startsWith('<')) return text;
  return `upstream returned HTTP ${status}`;
}

// Error bodies of the OpenAI wire and its look-alikes:
// OpenAI/Azure `{error:{message,type,param,code}}`, Together `{error:"..."}` or `{message,type}`,
// Fireworks `{detail}` or gateway `{fault:{faultstring,detail:{errorcode}}}`.

import { type ErrorDetails, upstreamErrorInfo } from '../../errors/upstream.ts';
import type { UpstreamErrorInfo } from '../../ir/types.ts';
import type { HttpHeaders } from '../../util/http-headers.ts';
import { asRecord, asString, isRecord, tryParseJson } from '../../util/json.ts';

export function decodeOpenAIError(status: number, bodyText: string, headers: HttpHeaders): UpstreamErrorInfo {
  const parsed = tryParseJson(bodyText);
  return upstreamErrorInfo(status, bodyText, headers, parsed.ok ? errorDetails(parsed.value) : {});
}

export function errorDetails(body: unknown): ErrorDetails {
  const b = asRecord(body);
  if (isRecord(b.error)) {
    const e = b.error;
    const code = e.code;
    return {
      message: asString(e.message),
      code: typeof code === 'number' ? String(code) : (asString(code) ?? null),
      param: asString(e.param) ?? null,
    };
  }
  if (typeof b.error === 'string') return { message: b.error };
  if (isRecord(b.fault)) {
    return {
      message: asString(b.fault.faultstring),
      code: asString(asRecord(asRecord(b.fault).detail).errorcode) ?? null,
    };
  }
  if (typeof b.detail === 'string') return { message: b.detail };
  return { message: asString(b.message) };
}

/** A `data:` record carrying `{error}` mid-stream (the HTTP status was already 200). */
export function decodeStreamError(body: unknown, rawText: string): UpstreamErrorInfo {
  const details = errorDetails(body);
  const type = asString(asRecord(asRecord(body).error).type);
  const status = type === 'rate_limit_error' || type === 'rate_limit_exceeded' ? 429 : 500;
  return upstreamErrorInfo(status, rawText, {}, details);
}

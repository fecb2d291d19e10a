// Error bodies of the OpenAI wire and its look-alikes:
// OpenAI/Azure `{error:{message,type,param,code}}`, Together `{error:"..."}` or `{message,type}`,
// Fireworks `{detail}` or gateway `{fault:{faultstring,detail:{errorcode}}}`.
import type { UpstreamErrorInfo } from '../../ir/types.ts';
import { buildErrorInfo, type ErrorDetails, type UpstreamHeaders } from './http-errors.ts';
import { isObj, obj, str, tryParseJson } from './narrow.ts';

export function decodeOpenAIError(status: number, bodyText: string, headers: UpstreamHeaders): UpstreamErrorInfo {
  const parsed = tryParseJson(bodyText);
  return buildErrorInfo(status, bodyText, headers, parsed.ok ? errorDetails(parsed.value) : {});
}

export function errorDetails(body: unknown): ErrorDetails {
  const b = obj(body);
  if (isObj(b.error)) {
    const e = b.error;
    const code = e.code;
    return {
      message: str(e.message),
      code: typeof code === 'number' ? String(code) : (str(code) ?? null),
      param: str(e.param) ?? null,
    };
  }
  if (typeof b.error === 'string') return { message: b.error };
  if (isObj(b.fault)) {
    return { message: str(b.fault.faultstring), code: str(obj(obj(b.fault).detail).errorcode) ?? null };
  }
  if (typeof b.detail === 'string') return { message: b.detail };
  return { message: str(b.message) };
}

/** A `data:` record carrying `{error}` mid-stream (the HTTP status was already 200). */
export function decodeStreamError(body: unknown, rawText: string): UpstreamErrorInfo {
  const details = errorDetails(body);
  const type = str(obj(obj(body).error).type);
  const status = type === 'rate_limit_error' || type === 'rate_limit_exceeded' ? 429 : 500;
  return buildErrorInfo(status, rawText, {}, details);
}

// The family alpha error body `{error: {message, type, param, code}}`, for JSON answers and mid-stream
// error records alike: one function, so both carry the same fields for the same failure.
import type { GatewayError } from '../../../errors/gateway-error.ts';
import type { JsonObject } from '../../../ir/types.ts';

export function alphaErrorBody(e: GatewayError): JsonObject {
  return { error: { message: e.message, type: e.alphaType, param: e.param, code: e.wireCode } };
}

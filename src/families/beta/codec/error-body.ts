// The family beta error body `{type: "error", error: {type, message}}`, for JSON answers and the
// mid-stream `event: error` record alike.
import type { GatewayError } from '../../../errors/gateway-error.ts';
import type { JsonObject } from '../../../ir/types.ts';

export function betaErrorBody(e: GatewayError): JsonObject {
  return { type: 'error', error: { type: e.betaType, message: e.message } };
}

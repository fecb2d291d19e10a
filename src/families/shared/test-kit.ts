// Shared by the family codec tests (tests only; product code never imports this).
import assert from 'node:assert/strict';
import { GatewayError } from '../../errors/gateway-error.ts';

/** Asserts `decode(body)` throws a GatewayError whose message matches and, when given, names `param`. */
export function assertDecodeRejects(
  decode: (body: unknown) => unknown,
  body: unknown,
  message: RegExp,
  param?: string,
): void {
  assert.throws(
    () => decode(body),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError, `expected GatewayError, got ${String(err)}`);
      assert.match(err.message, message);
      if (param !== undefined) assert.equal(err.param, param);
      return true;
    },
  );
}

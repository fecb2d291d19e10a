// What a failed upstream attempt reports when the failure was not an HTTP error answer: the
// transport's own (unreachable, timed out, aborted) or an answer that is not JSON. Anything else
// is a gateway fault and is rethrown.
import type { UpstreamErrorInfo } from '../ir/types.ts';
import { UpstreamTransportError } from './http.ts';

export function attemptFailure(err: unknown): UpstreamErrorInfo {
  if (err instanceof UpstreamTransportError) return err.info;
  if (err instanceof SyntaxError)
    return { status: 502, kind: 'server', message: 'upstream sent a malformed body', retryable: true };
  throw err;
}

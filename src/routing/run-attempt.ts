// One timed attempt: the client's signal plus the attempt's own deadline. The deadline covers the time
// until the answer starts (headers of a stream, the whole body of a JSON answer) so that a healthy
// stream is never cut by its attempt timeout.
import type { AttemptOutcome } from '../ir/outcome.ts';
import { type AttemptRecord, attemptRecord, type Executor } from './execute-types.ts';
import type { PlannedAttempt } from './types.ts';

export interface TimedAttempt {
  outcome: AttemptOutcome;
  record: AttemptRecord;
  /** Aborts this attempt (losers of an ensemble). */
  cancel(): void;
}

export async function runAttempt(
  exec: Executor,
  step: PlannedAttempt,
  clientSignal: AbortSignal,
): Promise<TimedAttempt> {
  const ctl = new AbortController();
  const onClient = (): void => ctl.abort(clientSignal.reason);
  if (clientSignal.aborted) onClient();
  else clientSignal.addEventListener('abort', onClient, { once: true });
  const timer =
    step.timeoutMs !== undefined
      ? setTimeout(() => ctl.abort(new DOMException('attempt timed out', 'TimeoutError')), step.timeoutMs)
      : undefined;
  const started = performance.now();
  let outcome: AttemptOutcome;
  try {
    outcome = await exec.attempt(step, ctl.signal);
  } catch (err) {
    const timedOut =
      ctl.signal.aborted && ctl.signal.reason instanceof DOMException && ctl.signal.reason.name === 'TimeoutError';
    outcome = {
      ok: false,
      error: timedOut
        ? { status: 504, kind: 'timeout', message: `attempt timed out after ${step.timeoutMs} ms`, retryable: true }
        : { status: 502, kind: 'network', message: err instanceof Error ? err.message : String(err), retryable: true },
    };
  } finally {
    if (timer) clearTimeout(timer);
  }
  if (!outcome.ok && outcome.error.kind === 'timeout' && step.timeoutMs !== undefined) {
    outcome.error.message = `attempt timed out after ${step.timeoutMs} ms`;
  }
  const latency = Math.round((performance.now() - started) * 100) / 100;
  const cost = outcome.ok && outcome.kind === 'json' ? exec.cost(step.ref, outcome.usage) : 0;
  const record = attemptRecord(step.ref, outcome, latency, cost);
  if (outcome.ok) record.ttfb_ms = Math.round(outcome.ttfbMs * 100) / 100;
  if (!clientSignal.aborted) {
    exec.observe?.(step.ref, outcome.ok, latency, record.status, outcome.ok ? 'ok' : outcome.error.kind);
  }
  clientSignal.removeEventListener('abort', onClient);
  return { outcome, record, cancel: () => ctl.abort(new DOMException('cancelled: another attempt won', 'AbortError')) };
}

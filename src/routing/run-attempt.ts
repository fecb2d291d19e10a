// One timed attempt: the client's signal plus the attempt's own deadline. The deadline covers the time
// until the answer starts (headers of a stream, the whole body of a JSON answer) so that a healthy
// stream is never cut by its attempt timeout.
import type { FailedOutcome } from '../ir/outcome.ts';
import { type Attempter, type AttemptRecord, attemptRecord, type Settled } from './execute-types.ts';
import type { PlannedAttempt } from './types.ts';

export interface TimedAttempt<O extends Settled> {
  outcome: O | FailedOutcome;
  record: AttemptRecord;
  /** Aborts this attempt (losers of an ensemble). */
  cancel(): void;
}

/** Undefined when the attempter skipped the step (see Attempter.attempt). */
export async function runAttempt<O extends Settled>(
  exec: Attempter<O>,
  step: PlannedAttempt,
  clientSignal: AbortSignal,
): Promise<TimedAttempt<O> | undefined> {
  const ctl = new AbortController();
  const onClient = (): void => ctl.abort(clientSignal.reason);
  if (clientSignal.aborted) onClient();
  else clientSignal.addEventListener('abort', onClient, { once: true });
  const timer =
    step.timeoutMs !== undefined
      ? setTimeout(() => ctl.abort(new DOMException('attempt timed out', 'TimeoutError')), step.timeoutMs)
      : undefined;
  const started = performance.now();
  let outcome: O | FailedOutcome | undefined;
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
  if (outcome === undefined) {
    clientSignal.removeEventListener('abort', onClient);
    return undefined;
  }
  if (!outcome.ok && outcome.error.kind === 'timeout' && step.timeoutMs !== undefined) {
    outcome.error.message = `attempt timed out after ${step.timeoutMs} ms`;
  }
  const latency = Math.round((performance.now() - started) * 100) / 100;
  const measured = outcome.ok && exec.measure ? exec.measure(step.ref, outcome) : undefined;
  const record = attemptRecord(step.ref, outcome, latency, measured?.costUsd ?? 0);
  if (measured?.ttfbMs !== undefined) record.ttfb_ms = Math.round(measured.ttfbMs * 100) / 100;
  if (!clientSignal.aborted) {
    exec.observe?.(step.ref, outcome.ok, latency, record.status, outcome.ok ? 'ok' : outcome.error.kind);
  }
  clientSignal.removeEventListener('abort', onClient);
  return { outcome, record, cancel: () => ctl.abort(new DOMException('cancelled: another attempt won', 'AbortError')) };
}

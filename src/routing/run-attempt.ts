// One timed attempt: the client's signal plus the attempt's own deadline. The deadline covers the time
// until the answer starts (headers of a stream, the whole body of a JSON answer) so that a healthy
// stream is never cut by its attempt timeout.
import type { CallSignal } from '../ir/call-signal.ts';
import type { FailedOutcome } from '../ir/outcome.ts';
import { CallAbort } from '../util/call-abort.ts';
import { type Attempter, type AttemptRecord, attemptRecord, type Settled } from './execute-types.ts';
import type { PlannedAttempt } from './types.ts';

export interface TimedAttempt<O extends Settled> {
  outcome: O | FailedOutcome;
  record: AttemptRecord;
}

/** Undefined when the attempter skipped the step (see Attempter.attempt). */
export async function runAttempt<O extends Settled>(
  exec: Attempter<O>,
  step: PlannedAttempt,
  clientSignal: CallSignal,
): Promise<TimedAttempt<O> | undefined> {
  // A signal of its own only for a deadline: without one the caller's signal is the attempt's (an
  // ensemble already gives each attempt its own, which it cancels losers through). Its own is a light
  // cell (util/call-abort.ts), not an AbortController.
  let signal = clientSignal;
  let onClient: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (step.timeoutMs !== undefined) {
    const ctl = new CallAbort();
    signal = ctl;
    onClient = (): void => ctl.abort(clientSignal.reason);
    if (clientSignal.aborted) onClient();
    else clientSignal.addEventListener('abort', onClient, { once: true });
    timer = setTimeout(() => ctl.abort(new DOMException('attempt timed out', 'TimeoutError')), step.timeoutMs);
  }
  const started = performance.now();
  let outcome: O | FailedOutcome | undefined;
  try {
    outcome = await exec.attempt(step, signal);
  } catch (err) {
    const timedOut = signal.aborted && signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
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
    if (onClient) clientSignal.removeEventListener('abort', onClient);
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
  if (onClient) clientSignal.removeEventListener('abort', onClient);
  return { outcome, record };
}

// What the execution loop needs from the proxy (one attempt, its cost, judges, a health feed) and what
// it reports back: the outcome to send plus one record per attempt for the decision trace.
import type { CallSignal } from '../ir/call-signal.ts';
import type { AttemptOutcome, FailedOutcome } from '../ir/outcome.ts';
import type { Usage } from '../ir/types.ts';
import type { CandidateRef, PlannedAttempt } from './types.ts';

export interface AttemptRecord {
  model: string;
  provider: string;
  /** HTTP status of the attempt (0 when it was cancelled before an answer). */
  status: number;
  outcome: 'success' | 'error' | 'rejected' | 'cancelled';
  latency_ms: number;
  ttfb_ms?: number;
  error?: string;
  /** Why a successful answer was rejected (cascade) or why the attempt was cancelled. */
  reason?: string;
  cost_usd: number;
  /** Judge score (cascade with a judge). */
  score?: number;
  /** This attempt's answer is the one returned. */
  served?: boolean;
}

/** The trace record of one finished attempt (the caller adds ttfb or a cancel reason where it has them). */
export function attemptRecord(
  ref: { model: string; vendorAsSent: string },
  outcome: { ok: true } | { ok: false; error: { status: number; message: string } },
  latencyMs: number,
  costUsd: number,
): AttemptRecord {
  const record: AttemptRecord = {
    model: ref.model,
    provider: ref.vendorAsSent,
    status: outcome.ok ? 200 : outcome.error.status,
    outcome: outcome.ok ? 'success' : 'error',
    latency_ms: latencyMs,
    cost_usd: costUsd,
  };
  if (!outcome.ok) record.error = outcome.error.message;
  return record;
}

/** What every attempt's outcome has in common, whatever a success carries (an answer, vectors, a body). */
export type Settled = { ok: true } | FailedOutcome;

/**
 * One kind of attempt, for the execution loop: chat answers, embeddings and pass-through calls share
 * the loop and differ only in what `attempt` returns.
 */
export interface Attempter<O extends Settled> {
  /** One try of a step; undefined when it could not be tried at all (no credential): no record, next step. */
  attempt(step: PlannedAttempt, signal: CallSignal): Promise<O | undefined>;
  /** Called for successful outcomes only: their cost and time to first byte, for the trace record. */
  measure?(ref: CandidateRef, outcome: O): { costUsd: number; ttfbMs?: number };
  /** Health feed: called once per finished attempt (not for cancelled ones). */
  observe?(ref: CandidateRef, ok: boolean, latencyMs: number, status: number, kind: string): void;
}

/** The chat executor: every step is tried, answers are priced by usage, judges may be asked. */
export interface Executor {
  attempt(step: PlannedAttempt, signal: CallSignal): Promise<AttemptOutcome>;
  cost(ref: CandidateRef, usage: Usage): number;
  /** Asks a judge to pick the best of several answers; returns an index or undefined. */
  judgePick?(judge: CandidateRef, answers: string[], signal: CallSignal): Promise<number | undefined>;
  /** Asks a judge to score one answer 0..10. */
  judgeScore?(judge: CandidateRef, answer: string, signal: CallSignal): Promise<number | undefined>;
  /** Health feed: called once per finished attempt (not for cancelled ones). */
  observe?(ref: CandidateRef, ok: boolean, latencyMs: number, status: number, kind: string): void;
}

export interface ExecutionResult<O extends Settled = AttemptOutcome> {
  /** A thrown attempt or a plan with nothing to try ends as a FailedOutcome, whatever O is. */
  outcome: O | FailedOutcome;
  /** The attempt whose outcome is returned (undefined when no step was tried). */
  step?: PlannedAttempt;
  attempts: AttemptRecord[];
  /** Index in `attempts` of the record whose outcome is returned. */
  servedIndex?: number;
}

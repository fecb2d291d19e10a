// The execution loop: runs a Decision's attempts in the plan's mode and returns the outcome to send
// plus one record per attempt. Nothing is written to the caller here, so every mode can still move
// on after a failure (streams only until their first byte, which has not been sent yet). The
// sequential loop is generic over what an attempt returns: chat, embeddings and pass-through calls
// all fall back through it; the ensemble and cascade modes need chat answers.
import type { CallSignal } from '../ir/call-signal.ts';
import type { AttemptOutcome, FailedOutcome, JsonOutcome } from '../ir/outcome.ts';
import { localRejection, shouldRetry } from './acceptance.ts';
import { runParallel } from './execute-parallel.ts';
import type { Attempter, AttemptRecord, ExecutionResult, Executor, Settled } from './execute-types.ts';
import { runAttempt } from './run-attempt.ts';
import type { Decision, PlannedAttempt } from './types.ts';

export interface ExecuteOptions {
  signal: CallSignal;
  /** The request asked for JSON (json_object or json_schema). */
  wantsJson: boolean;
}

const NO_CANDIDATE: FailedOutcome = {
  ok: false,
  error: {
    status: 503,
    kind: 'server',
    code: 'no_eligible_candidate',
    message: 'no candidate of the routing config can serve this request',
    retryable: false,
  },
};

export async function executePlan(d: Decision, exec: Executor, opts: ExecuteOptions): Promise<ExecutionResult> {
  if (d.attempts.length === 0) return { outcome: NO_CANDIDATE, attempts: [] };
  const chat = chatAttempter(exec);
  if (d.mode === 'parallel_fastest' || d.mode === 'parallel_judge') return runParallel(d, exec, chat, opts.signal);
  if (d.mode === 'cascade') return runCascade(d, exec, chat, opts);
  return runSequential(d, chat, opts.signal);
}

const NOT_MEASURED = { costUsd: 0 };

function chatAttempter(exec: Executor): Attempter<AttemptOutcome> {
  return {
    attempt: (step, signal) => exec.attempt(step, signal),
    measure: (ref, o) =>
      o.ok ? { costUsd: o.kind === 'json' ? exec.cost(ref, o.usage) : 0, ttfbMs: o.ttfbMs } : NOT_MEASURED,
    observe: exec.observe ? (...a) => exec.observe?.(...a) : undefined,
  };
}

/**
 * Tries the steps in order until one succeeds, the caller leaves, or the plan's retry rule stops on
 * a failure. Steps the attempter skips leave no record; with none tried the outcome is a 503.
 */
export async function runSequential<O extends Settled>(
  d: Decision,
  exec: Attempter<O>,
  signal: CallSignal,
): Promise<ExecutionResult<O>> {
  const attempts: AttemptRecord[] = [];
  let last: { outcome: O | FailedOutcome; step: PlannedAttempt } | undefined;
  for (const [i, step] of d.attempts.entries()) {
    const r = await runAttempt(exec, step, signal);
    if (r === undefined) continue;
    attempts.push(r.record);
    last = { outcome: r.outcome, step };
    if (r.outcome.ok || signal.aborted) break;
    const more = i < d.attempts.length - 1;
    if (!more || !shouldRetry(d.retry, r.outcome.error)) break;
  }
  if (last === undefined) return { outcome: NO_CANDIDATE, attempts };
  return { outcome: last.outcome, step: last.step, attempts, servedIndex: attempts.length - 1 };
}

async function runCascade(
  d: Decision,
  exec: Executor,
  chat: Attempter<AttemptOutcome>,
  opts: ExecuteOptions,
): Promise<ExecutionResult> {
  const attempts: AttemptRecord[] = [];
  // The best answer so far: when every later step fails, a rejected answer beats an error.
  let fallback: { outcome: JsonOutcome; step: PlannedAttempt; index: number } | undefined;
  let last: { outcome: AttemptOutcome; step: PlannedAttempt } | undefined;
  for (const [i, step] of d.attempts.entries()) {
    const isLast = i === d.attempts.length - 1;
    const r = await runAttempt(chat, step, opts.signal);
    // The chat attempter tries every step (a missing credential is a failed attempt).
    if (r === undefined) continue;
    attempts.push(r.record);
    last = { outcome: r.outcome, step };
    if (opts.signal.aborted) break;
    if (!r.outcome.ok) {
      if (isLast || !shouldRetry(d.retry, r.outcome.error)) break;
      continue;
    }
    if (r.outcome.kind !== 'json' || isLast || !step.accept) break;
    const reason = await rejection(r.outcome, step, exec, opts, r.record);
    if (!reason) break;
    r.record.outcome = 'rejected';
    r.record.reason = reason;
    fallback = { outcome: r.outcome, step, index: attempts.length - 1 };
  }
  if (last && !last.outcome.ok && fallback) {
    return { outcome: fallback.outcome, step: fallback.step, attempts, servedIndex: fallback.index };
  }
  return { outcome: last!.outcome, step: last!.step, attempts, servedIndex: attempts.length - 1 };
}

async function rejection(
  out: JsonOutcome,
  step: PlannedAttempt,
  exec: Executor,
  opts: ExecuteOptions,
  record: AttemptRecord,
): Promise<string | undefined> {
  const accept = step.accept!;
  const local = localRejection(out, accept, opts.wantsJson);
  if (local || !accept.judge || !exec.judgeScore) return local;
  const score = await exec.judgeScore(accept.judge.ref, out.text, opts.signal);
  if (score === undefined) return 'judge_unavailable';
  record.score = score;
  return score < accept.judge.threshold ? 'judge_score_below_threshold' : undefined;
}

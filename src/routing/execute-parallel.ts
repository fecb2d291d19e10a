// Ensemble execution: every attempt at once. `parallel_fastest` returns the first success and cancels
// the others; `parallel_judge` waits for all and lets the judge pick among the successes.
import type { CallSignal } from '../ir/call-signal.ts';
import type { AttemptOutcome } from '../ir/outcome.ts';
import type { Attempter, ExecutionResult, Executor } from './execute-types.ts';
import { runAttempt, type TimedAttempt } from './run-attempt.ts';
import type { Decision, PlannedAttempt } from './types.ts';

interface Settled {
  step: PlannedAttempt;
  r: TimedAttempt<AttemptOutcome>;
}

/** The chat attempter tries every step, so each settles with a record. */
function tried(r: TimedAttempt<AttemptOutcome> | undefined): TimedAttempt<AttemptOutcome> {
  if (r === undefined) throw new Error('a parallel attempt was skipped');
  return r;
}

export async function runParallel(
  d: Decision,
  exec: Executor,
  chat: Attempter<AttemptOutcome>,
  signal: CallSignal,
): Promise<ExecutionResult> {
  const cancels = new Map<PlannedAttempt, () => void>();
  const settled: Settled[] = [];
  let winner: Settled | undefined;
  const pending = d.attempts.map((step) => {
    const ctl = new AbortController();
    const relay = (): void => ctl.abort(signal.reason);
    signal.addEventListener('abort', relay, { once: true });
    cancels.set(step, () => ctl.abort(new DOMException('cancelled: another attempt won', 'AbortError')));
    return runAttempt(chat, step, ctl.signal).then((found) => {
      const r = tried(found);
      signal.removeEventListener('abort', relay);
      const s = { step, r };
      settled.push(s);
      if (d.mode === 'parallel_fastest' && r.outcome.ok && !winner) {
        winner = s;
        for (const [other, cancel] of cancels) if (other !== step) cancel();
      }
      return s;
    });
  });
  await Promise.all(pending);
  const records = d.attempts.map((step) => {
    const s = settled.find((x) => x.step === step)!;
    if (winner && s !== winner) {
      if (s.r.outcome.ok) cancels.get(s.step)?.();
      return {
        ...s.r.record,
        outcome: 'cancelled' as const,
        reason: 'another_attempt_won',
        status: s.r.outcome.ok ? s.r.record.status : 0,
      };
    }
    return s.r.record;
  });
  const indexOf = (s: Settled): number => d.attempts.indexOf(s.step);
  if (winner) return { outcome: winner.r.outcome, step: winner.step, attempts: records, servedIndex: indexOf(winner) };
  const ok = settled.filter((s) => s.r.outcome.ok);
  if (ok.length === 0) {
    const lastFailure = settled[settled.length - 1];
    return {
      outcome: lastFailure.r.outcome,
      step: lastFailure.step,
      attempts: records,
      servedIndex: indexOf(lastFailure),
    };
  }
  const chosen = await judgeChoice(d, exec, ok, signal);
  return { outcome: chosen.r.outcome, step: chosen.step, attempts: records, servedIndex: indexOf(chosen) };
}

function textOf(o: AttemptOutcome): string {
  return o.ok && o.kind === 'json' ? o.text : '';
}

async function judgeChoice(d: Decision, exec: Executor, ok: Settled[], signal: CallSignal): Promise<Settled> {
  // Keep the plan's order so that the judge's "answer 1" is the first candidate of the config.
  const ordered = d.attempts.flatMap((step) => ok.filter((s) => s.step === step));
  if (ordered.length === 1 || !d.judge || !exec.judgePick) return ordered[0];
  const pick = await exec.judgePick(
    d.judge,
    ordered.map((s) => textOf(s.r.outcome)),
    signal,
  );
  const chosen = ordered[pick ?? 0];
  chosen.r.record.reason = pick === undefined ? 'judge_unavailable_first_success' : 'judge_pick';
  return chosen;
}

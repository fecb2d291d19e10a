// Message Batch lifecycle as a pure function of time: in_progress -> (canceling ->) ended.
import { parseScript } from '../script.ts';
import type { errorBody } from './errors.ts';
import type { MessageOut } from './types.ts';

export type BatchResult =
  | { type: 'succeeded'; message: MessageOut }
  | { type: 'errored'; error: ReturnType<typeof errorBody> }
  | { type: 'canceled' }
  | { type: 'expired' };

export interface BatchRecord {
  id: string;
  createdAt: number;
  /** Computed when the batch is created; a request's outcome never depends on when it is read. */
  outcomes: Array<{ custom_id: string; result: BatchResult }>;
  cancelAt?: number;
}

export interface BatchView {
  status: 'in_progress' | 'canceling' | 'ended';
  endedAt: number | null;
  results: Array<{ custom_id: string; result: BatchResult }>;
}

/** A batch runs for two steps; requests finish evenly over that time (relevant when canceled). */
const STEPS = 2;

function doneBy(rec: BatchRecord, t: number, stepMs: number): number {
  const frac = Math.min(1, Math.max(0, (t - rec.createdAt) / (STEPS * stepMs)));
  return Math.floor(rec.outcomes.length * frac);
}

export function viewBatch(rec: BatchRecord, now: number, stepMs: number): BatchView {
  const naturalEnd = rec.createdAt + STEPS * stepMs;
  if (rec.cancelAt !== undefined && rec.cancelAt < naturalEnd) {
    const endedAt = rec.cancelAt + stepMs;
    if (now < endedAt) return { status: 'canceling', endedAt: null, results: [] };
    const done = doneBy(rec, rec.cancelAt, stepMs);
    const results = rec.outcomes.map((o, i) =>
      i < done ? o : { custom_id: o.custom_id, result: { type: 'canceled' as const } },
    );
    return { status: 'ended', endedAt, results };
  }
  if (now < naturalEnd) return { status: 'in_progress', endedAt: null, results: [] };
  return { status: 'ended', endedAt: naturalEnd, results: rec.outcomes };
}

export function requestCounts(rec: BatchRecord, view: BatchView) {
  const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  if (view.status !== 'ended') {
    counts.processing = rec.outcomes.length;
    return counts;
  }
  for (const r of view.results) counts[r.result.type]++;
  return counts;
}

/** `hang` models never finish inside the window, so their requests come back expired. */
export function expiresFor(model: unknown): boolean {
  return typeof model === 'string' && parseScript(model).hang;
}

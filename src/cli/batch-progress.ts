// `switchyard batch run`: what its progress line and summary say. Pure (the clock is passed in), so
// the formatting and the rate / ETA arithmetic are unit-tested without a gateway.

export interface ProgressSnapshot {
  batchId: string;
  status: string;
  /** Requests settled: completed + failed. */
  done: number;
  total: number;
  failed: number;
  /** Since the batch was created. */
  elapsedMs: number;
  /** Requests settled per second, over the recent past; null until it can be told. */
  rate: number | null;
  /** Time left at that rate; null when unknown. */
  etaMs: number | null;
}

/** How far back the rate looks: long enough to smooth, short enough to follow a change of pace. */
const RATE_WINDOW_MS = 10_000;
/** Less than this since the first sample tells no rate yet. */
const RATE_MIN_SPAN_MS = 900;

/** Turns successive polls of a batch into snapshots with a rate and an ETA. */
export class ProgressMeter {
  readonly #startedAt: number;
  #samples: Array<{ t: number; done: number }> = [];

  constructor(startedAt: number) {
    this.#startedAt = startedAt;
  }

  observe(
    now: number,
    batch: { id: string; status: string; total: number; completed: number; failed: number },
  ): ProgressSnapshot {
    const done = batch.completed + batch.failed;
    // Counting starts with the first poll that sees work under way, so validation does not dilute it.
    if (batch.status !== 'validating' || this.#samples.length > 0) this.#samples.push({ t: now, done });
    while (this.#samples.length > 2 && now - (this.#samples[1]?.t ?? now) >= RATE_WINDOW_MS) this.#samples.shift();
    const first = this.#samples[0];
    let rate: number | null = null;
    if (first !== undefined && now - first.t >= RATE_MIN_SPAN_MS) rate = ((done - first.done) * 1000) / (now - first.t);
    const left = Math.max(0, batch.total - done);
    const etaMs = left === 0 && batch.total > 0 ? 0 : rate !== null && rate > 0 ? (left / rate) * 1000 : null;
    return {
      batchId: batch.id,
      status: batch.status,
      done,
      total: batch.total,
      failed: batch.failed,
      elapsedMs: Math.max(0, now - this.#startedAt),
      rate,
      etaMs,
    };
  }
}

/** `850ms`, `12.4s`, `3m05s`, `2h01m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function rateText(rate: number | null): string {
  if (rate === null) return '-- req/s';
  return `${rate >= 100 ? rate.toFixed(0) : rate.toFixed(1)} req/s`;
}

function etaText(etaMs: number | null): string {
  if (etaMs === null) return 'ETA --';
  if (etaMs < 1000) return etaMs === 0 ? 'ETA 0s' : 'ETA <1s';
  return `ETA ${formatDuration(etaMs)}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The fields that make a plain progress line worth printing again (rate and ETA move on every poll). */
export function progressKey(s: ProgressSnapshot): string {
  return `${s.status} ${s.done} ${s.total} ${s.failed}`;
}

/** One line for a log or a pipe: `batch_x in_progress 12/40 done, 1 error, 3.2 req/s, ETA 9.0s`. */
export function formatPlainProgress(s: ProgressSnapshot): string {
  return `${s.batchId} ${s.status} ${s.done}/${s.total} done, ${plural(s.failed, 'error')}, ${rateText(s.rate)}, ${etaText(s.etaMs)}`;
}

/**
 * The terminal's line, redrawn in place: a bar whose width depends on `columns` only (so it does
 * not jitter as the counts grow), then the counts. Cut to `columns - 1`, so it cannot wrap (a
 * wrapped line is not redrawn by `\r`).
 */
export function formatTtyProgress(s: ProgressSnapshot, columns: number): string {
  const ratio = s.total > 0 ? Math.min(1, s.done / s.total) : 0;
  const pct = `${String(Math.floor(ratio * 100)).padStart(3)}%`;
  const tail = `${s.done}/${s.total}  ${plural(s.failed, 'error')}  ${rateText(s.rate)}  ${etaText(s.etaMs)}  ${s.status}`;
  const room = Math.max(0, columns - 1);
  const barWidth = columns >= 100 ? 30 : columns >= 60 ? 20 : 0;
  if (barWidth === 0) return `${pct} ${tail}`.slice(0, room);
  const filled = Math.round(ratio * barWidth);
  return `[${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}] ${pct} ${tail}`.slice(0, room);
}

export interface Summary {
  batchId: string;
  status: string;
  total: number;
  completed: number;
  failed: number;
  elapsedMs: number;
  /** Known only when the gateway tells it. */
  costUsd: number | null;
  outPath: string;
  /** The batch's own errors (why it failed), when it has any. */
  errors: string[];
}

/** The lines printed when the batch has ended. */
export function formatSummary(s: Summary): string {
  const lines = [`batch ${s.batchId} ${s.status} in ${formatDuration(s.elapsedMs)}`];
  let counts = `  ${s.completed} completed, ${s.failed} failed, of ${s.total}`;
  if (s.costUsd !== null) counts += `; cost $${formatCost(s.costUsd)}`;
  lines.push(counts);
  for (const e of s.errors) lines.push(`  error: ${e}`);
  lines.push(`  results: ${s.outPath}`);
  return `${lines.join('\n')}\n`;
}

/** Dollars with enough digits to show a fraction of a cent, never in exponent notation. */
export function formatCost(usd: number): string {
  if (usd === 0) return '0';
  if (usd >= 1) return usd.toFixed(2);
  if (usd < 0.000001) return '<0.000001';
  return usd.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
}

// When a failed webhook delivery is tried again. A fixed, operator-visible schedule (as Standard
// Webhooks / Svix publish theirs) rather than open-ended exponential backoff, so receivers know how
// long an outage they can ride out before a delivery is marked `failed`: about 28 h by default.

export const RETRY_SCHEDULE_ENV = 'SWITCHYARD_WEBHOOK_RETRY_SCHEDULE';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Delays (ms) after the 1st, 2nd, ... failed attempt: 5s, 5m, 30m, 2h, 5h, 10h, 10h (27.6 h in all). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
]);

/** Each delay is drawn from ±20% of its nominal value, so deliveries that failed together (one
 * receiver outage) do not all come back in the same second. */
export const RETRY_JITTER = 0.2;

// Bounds that catch typos (`36000h` for `36000s`) rather than encode any policy.
const MAX_DELAY_MS = 7 * DAY;
const MAX_ENTRIES = 50;

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY };
const ENTRY = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

/**
 * Parses a comma-separated list of delays. An entry is a number with an optional unit (ms, s, m,
 * h, d); a bare number means seconds, as in the form documented in DESIGN (`5,300,1800,...`).
 * Unset or blank gives the default; `none` means no retries. Throws naming the bad entry.
 */
export function parseRetrySchedule(raw: string | null | undefined, name = RETRY_SCHEDULE_ENV): readonly number[] {
  if (raw === null || raw === undefined || raw.trim() === '') return DEFAULT_RETRY_SCHEDULE_MS;
  if (raw.trim().toLowerCase() === 'none') return Object.freeze([]);
  const entries = raw.split(',').map((e) => e.trim().toLowerCase());
  if (entries.length > MAX_ENTRIES) {
    throw new Error(`${name} has ${entries.length} delays; at most ${MAX_ENTRIES} are allowed`);
  }
  const delays = entries.map((entry, i) => {
    if (entry === '') throw new Error(`${name}: delay ${i + 1} is empty in "${raw}"`);
    const m = ENTRY.exec(entry);
    if (!m) {
      throw new Error(
        `${name}: "${entry}" is not a delay; use a number with an optional unit (ms, s, m, h, d), e.g. 5s,5m,2h`,
      );
    }
    const ms = Math.round(Number(m[1]) * UNITS[m[2] ?? 's']);
    if (ms <= 0) throw new Error(`${name}: delay "${entry}" must be greater than zero`);
    if (ms > MAX_DELAY_MS) throw new Error(`${name}: delay "${entry}" is longer than 7 days`);
    return ms;
  });
  return Object.freeze(delays);
}

/** Total nominal time from the first failure to giving up. */
export function scheduleSpanMs(schedule: readonly number[]): number {
  return schedule.reduce((a, b) => a + b, 0);
}

/**
 * Delay (ms) before the next try after failed attempt `attempt` (1-based: 1 = the first delivery
 * failed), or null when the schedule is exhausted and the delivery should be marked `failed`.
 * `random` returns [0, 1), injectable so tests are exact.
 */
export function retryDelayMs(
  attempt: number,
  schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS,
  random: () => number = Math.random,
): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new Error(`attempt must be a positive integer, got ${attempt}`);
  if (attempt > schedule.length) return null;
  const nominal = schedule[attempt - 1];
  const factor = 1 - RETRY_JITTER + 2 * RETRY_JITTER * random();
  return Math.max(1, Math.round(nominal * factor));
}

/** How many attempts a delivery gets in all: the first plus one per scheduled retry. */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}

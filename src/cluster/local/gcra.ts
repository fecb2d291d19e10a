// GCRA (the generic cell rate algorithm) for per-minute limits. Each counter is one number, the
// theoretical arrival time (TAT) of the next request once the ones admitted so far are paid for:
// a limit of N per minute spaces requests T = 60 s / N apart and tolerates a burst of N, so a
// fresh counter admits exactly N at once and then one every T. Unlike a fixed window there is no
// double burst at a window edge, unlike a sliding log it keeps no timestamps, and the whole state
// update is a compare-and-set that a Redis script does in one step. Pure: time comes in.

export const WINDOW_MS = 60_000;

export interface GcraVerdict {
  ok: boolean;
  /** The TAT to store when the request is admitted. */
  tat: number;
  /** Until this request could pass (0 when it passes; Infinity when it never can). */
  retryAfterMs: number;
  /** Units that could still pass now, after this request. */
  remaining: number;
  /** Until the counter is whole again. */
  resetMs: number;
}

/** Whether `cost` units (1 request, or N tokens) fit a limit of `perMinute` given the stored TAT. */
export function gcra(storedTat: number, now: number, perMinute: number, cost: number): GcraVerdict {
  const interval = WINDOW_MS / perMinute;
  const tat = Math.max(storedTat, now);
  const next = tat + interval * cost;
  // The burst tolerance is the whole window: `next` may run at most one window ahead of now.
  const earliest = next - WINDOW_MS;
  if (cost > perMinute) {
    return {
      ok: false,
      tat: storedTat,
      retryAfterMs: Number.POSITIVE_INFINITY,
      ...left(tat, now, interval, perMinute),
    };
  }
  if (earliest > now) {
    return { ok: false, tat: storedTat, retryAfterMs: earliest - now, ...left(tat, now, interval, perMinute) };
  }
  return { ok: true, tat: next, retryAfterMs: 0, ...left(next, now, interval, perMinute) };
}

function left(tat: number, now: number, interval: number, perMinute: number): { remaining: number; resetMs: number } {
  const ahead = Math.max(0, tat - now);
  return { remaining: Math.max(0, Math.min(perMinute, Math.floor((WINDOW_MS - ahead) / interval))), resetMs: ahead };
}

/** Moves a TAT by `delta` units (a token estimate corrected after the call); never behind now. */
export function adjustTat(storedTat: number, now: number, perMinute: number, delta: number): number {
  const moved = storedTat + (WINDOW_MS / perMinute) * delta;
  return delta < 0 ? Math.max(moved, Math.min(storedTat, now)) : moved;
}

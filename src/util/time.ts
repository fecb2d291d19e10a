// Timestamps are stored as ISO-8601 UTC text everywhere (both dialects), which sorts lexically.
export function nowIso(): string {
  return new Date().toISOString();
}

export function isoMinus(ms: number, from: number = Date.now()): string {
  return new Date(from - ms).toISOString();
}

// The last second formatted, `YYYY-MM-DDTHH:MM:SS.`: calls a second apart share it.
let secondMs = Number.NaN;
let secondText = '';

/**
 * `new Date(ms).toISOString()` for the current era's times (years 0-9999), cheaper per call: every
 * proxy call stamps its log row, and V8's date formatting cost more than the rest of the row.
 */
export function isoAt(ms: number): string {
  const second = ms - (((ms % 1000) + 1000) % 1000);
  if (second !== secondMs) {
    const full = new Date(second).toISOString();
    // Outside years 0-9999 the format has a sign and six digits; no cache for those.
    if (full.length !== 24) return new Date(ms).toISOString();
    secondMs = second;
    secondText = full.slice(0, 20);
  }
  const milli = ms - second;
  return `${secondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

// Timestamps are stored as ISO-8601 UTC text everywhere (both dialects), which sorts lexically.
export function nowIso(): string {
  return new Date().toISOString();
}

export function isoMinus(ms: number, from: number = Date.now()): string {
  return new Date(from - ms).toISOString();
}

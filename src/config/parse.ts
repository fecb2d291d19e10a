// The value rules every setting shares, so each names its variable and unit the same way when it
// refuses a value.

/** Trimmed, or null when unset or blank (a blank variable means the default, as unset does). */
export function nonEmpty(v: string | undefined): string | null {
  return v !== undefined && v.trim() !== '' ? v.trim() : null;
}

/**
 * A positive number of `unit` (`whole`: an integer), or the default when unset. One rule for every
 * count, duration and period setting, so each names its own unit when it refuses a value.
 */
export function parsePositive(
  raw: string | null,
  name: string,
  fallback: number,
  unit: string,
  whole: boolean,
): number {
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!(whole ? Number.isInteger(n) : Number.isFinite(n)) || n <= 0)
    throw new Error(`${name} must be a positive ${whole ? 'whole ' : ''}number of ${unit}, got "${raw}"`);
  return n;
}

/** `true`/`false` (also `1`/`0`, `yes`/`no`, any case), or the default when unset. */
export function parseBool(raw: string | null, name: string, fallback: boolean): boolean {
  if (raw === null) return fallback;
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/** Comma-separated names, blanks dropped; empty when unset. */
export function parseList(raw: string | null): string[] {
  return (raw ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

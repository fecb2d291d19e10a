// The time window of the overview, from the query string: a preset (last hour ... last 30 days) or
// a custom start and end, and the bucket size. Pure, so it is unit-tested without a browser.

export const RANGES = [
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '6h', label: 'Last 6 hours', ms: 6 * 3_600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 24 * 3_600_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

export type Granularity = 'hour' | 'day';

export interface Window {
  range: string;
  start: string;
  end: string;
  granularity: Granularity;
  /** Set when a custom range is unusable; the default window is used meanwhile. */
  problem?: string;
}

const DEFAULT_RANGE = '24h';

/** Hours for spans up to two days, days beyond: a chart of 30 to 720 points either way. */
export function autoGranularity(spanMs: number): Granularity {
  return spanMs <= 2 * 86_400_000 ? 'hour' : 'day';
}

export function resolveWindow(query: URLSearchParams, now: number): Window {
  const range = query.get('range') ?? DEFAULT_RANGE;
  const asked = query.get('granularity');
  const pick = (span: number): Granularity => (asked === 'hour' || asked === 'day' ? asked : autoGranularity(span));
  if (range === 'custom') {
    const start = Date.parse(query.get('start') ?? '');
    const end = Date.parse(query.get('end') ?? '') || now;
    if (!Number.isNaN(start) && end > start) {
      return {
        range,
        start: new Date(start).toISOString(),
        end: new Date(end).toISOString(),
        granularity: pick(end - start),
      };
    }
    const fallback = resolveWindow(new URLSearchParams({ range: DEFAULT_RANGE }), now);
    return { ...fallback, range, problem: 'Pick a start before the end for a custom range.' };
  }
  const preset = RANGES.find((r) => r.id === range) ?? RANGES.find((r) => r.id === DEFAULT_RANGE);
  const span = preset?.ms ?? 86_400_000;
  // The end is kept to the minute so that re-rendering within a minute asks for the same report.
  const end = Math.ceil(now / 60_000) * 60_000;
  return {
    range: preset?.id ?? DEFAULT_RANGE,
    start: new Date(end - span).toISOString(),
    end: new Date(end).toISOString(),
    granularity: pick(span),
  };
}

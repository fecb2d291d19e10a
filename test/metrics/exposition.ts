// Reads a /metrics answer with a real exposition-format parser (prom2javascript: labelled
// histograms grouped per label set, `+Inf` bucket checked against `_count`, unparseable lines
// rejected), plus the lookups the tests need.
import { getMetricsFromIterator, type PromHistogramData, type PromLabels, type PromMetrics } from 'prom2javascript';

export type { PromMetrics };

/**
 * NaN is a valid sample value that prom2javascript's grammar lacks; prom-client writes it (as
 * `Nan`) for the event-loop lag gauges before their first sample. Only those lines are dropped.
 */
export function parseExposition(text: string): Promise<PromMetrics> {
  const lines = text.split('\n').filter((line) => !/\sNaN$/i.test(line));
  return getMetricsFromIterator(lines[Symbol.iterator]());
}

function matches(labels: PromLabels, want: PromLabels): boolean {
  return Object.entries(want).every(([k, v]) => labels[k] === v);
}

/** Sum of a counter's or gauge's samples whose labels include `want`; 0 when none. */
export function sampleSum(m: PromMetrics, name: string, want: PromLabels = {}): number {
  const metric = m[name];
  if (!metric) throw new Error(`no metric ${name} in the scrape`);
  let sum = 0;
  for (const d of metric.data) if ('value' in d && matches(d.labels, want)) sum += d.value;
  return sum;
}

/** Observations in a histogram's series whose labels include `want`; 0 when none. */
export function histogramCount(m: PromMetrics, name: string, want: PromLabels = {}): number {
  const metric = m[name];
  if (!metric) throw new Error(`no metric ${name} in the scrape`);
  if (metric.type !== 'histogram') throw new Error(`${name} is a ${metric.type}, not a histogram`);
  let count = 0;
  for (const d of metric.data as PromHistogramData[]) if (matches(d.labels, want)) count += d.count;
  return count;
}

/** Every label set a metric has samples for. */
export function labelSets(m: PromMetrics, name: string): PromLabels[] {
  return (m[name]?.data ?? []).map((d) => d.labels);
}

// Turns the analytics report into chart lines. Pure, so it is unit-tested without a browser.
//
// Without group_by the report has every bucket of the window, one point each. With group_by it has
// one point per bucket and group that saw traffic; the chart keeps the busiest groups as lines and
// sums the rest into "other" for counts and money (a percentile of several groups cannot be
// rebuilt from theirs, so latency lines show the busiest groups only).
import type { ReportPoint } from '../types.ts';

export interface Line {
  label: string;
  values: (number | null)[];
  color?: string;
}

export type Metric = 'requests' | 'cost_usd' | 'errors' | 'p50_latency_ms' | 'p95_latency_ms' | 'p99_latency_ms';

const ADDITIVE: ReadonlySet<Metric> = new Set(['requests', 'cost_usd', 'errors']);

export function bucketSeconds(series: readonly ReportPoint[]): number[] {
  const set = new Set<number>();
  for (const p of series) set.add(Math.floor(Date.parse(p.bucket) / 1000));
  return [...set].sort((a, b) => a - b);
}

/** Groups ordered by their total requests, busiest first. */
export function groupsByTraffic(series: readonly ReportPoint[]): string[] {
  const totals = new Map<string, number>();
  for (const p of series) {
    const g = p.group ?? '(none)';
    totals.set(g, (totals.get(g) ?? 0) + p.requests);
  }
  return [...totals.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([g]) => g);
}

export function metricLines(
  series: readonly ReportPoint[],
  xs: readonly number[],
  metrics: ReadonlyArray<{ metric: Metric; label: string }>,
  grouped: boolean,
  maxGroups = 6,
): Line[] {
  const index = new Map(xs.map((x, i) => [x, i]));
  const at = (p: ReportPoint) => index.get(Math.floor(Date.parse(p.bucket) / 1000)) ?? -1;
  if (!grouped) {
    return metrics.map(({ metric, label }) => {
      const values: (number | null)[] = xs.map(() => (ADDITIVE.has(metric) ? 0 : null));
      for (const p of series) {
        const i = at(p);
        if (i >= 0) values[i] = p[metric];
      }
      return { label, values };
    });
  }
  const groups = groupsByTraffic(series);
  const shown = groups.slice(0, maxGroups);
  const lines: Line[] = [];
  for (const { metric, label } of metrics) {
    const additive = ADDITIVE.has(metric);
    const byGroup = new Map<string, (number | null)[]>();
    for (const g of shown)
      byGroup.set(
        g,
        xs.map(() => (additive ? 0 : null)),
      );
    const rest: number[] = xs.map(() => 0);
    let hasRest = false;
    for (const p of series) {
      const i = at(p);
      if (i < 0) continue;
      const values = byGroup.get(p.group ?? '(none)');
      if (values) values[i] = additive ? ((values[i] as number) ?? 0) + (p[metric] ?? 0) : p[metric];
      else if (additive) {
        rest[i] = (rest[i] as number) + (p[metric] ?? 0);
        hasRest = true;
      }
    }
    const suffix = metrics.length > 1 ? ` ${label}` : '';
    for (const g of shown) lines.push({ label: `${g}${suffix}`, values: byGroup.get(g) as (number | null)[] });
    if (hasRest) lines.push({ label: `other groups${suffix}`, values: rest });
  }
  return lines;
}

export interface GroupTotal {
  group: string;
  requests: number;
  cost_usd: number;
  errors: number;
}

/** Per-group sums over the whole window, busiest first: the "top models / providers / ..." lists. */
export function groupTotals(series: readonly ReportPoint[]): GroupTotal[] {
  const totals = new Map<string, GroupTotal>();
  for (const p of series) {
    const g = p.group ?? '(none)';
    const t = totals.get(g) ?? { group: g, requests: 0, cost_usd: 0, errors: 0 };
    t.requests += p.requests;
    t.cost_usd += p.cost_usd;
    t.errors += p.errors;
    totals.set(g, t);
  }
  return [...totals.values()].sort((a, b) => b.requests - a.requests || b.cost_usd - a.cost_usd);
}

/** Running totals: spend so far at each bucket, for burn-down charts. */
export function cumulative(values: readonly (number | null)[]): number[] {
  let sum = 0;
  return values.map((v) => {
    sum += v ?? 0;
    return sum;
  });
}

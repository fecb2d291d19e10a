// A budget's burn-down: spend accumulated over the period, the linear forecast from now to the end
// of the period (the API's forecast_usd), and the limit. Pure, so it is unit-tested.
import type { BudgetStatus, ReportPoint } from '../types.ts';
import type { Line } from './series.ts';

export interface BurnDown {
  xs: number[];
  spend: Line[];
  guides: Line[];
}

const sec = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * `report`: cost per bucket over the period when the budget's scope can be read from the analytics
 * report; otherwise spend is drawn straight from the period start to what the status says now.
 */
export function burnDown(status: BudgetStatus, limit: number, nowMs: number, report: ReportPoint[] | null): BurnDown {
  const start = sec(status.period_start);
  const now = Math.max(start, Math.floor(nowMs / 1000));
  const end = status.period_end ? Math.max(now, sec(status.period_end)) : null;
  const buckets = (report ?? [])
    .map((p) => ({ x: sec(p.bucket), cost: p.cost_usd }))
    .filter((b) => b.x >= start && b.x <= now);
  const xs = [...new Set([start, ...buckets.map((b) => b.x), now, ...(end !== null ? [end] : [])])].sort(
    (a, b) => a - b,
  );

  const spend: (number | null)[] = [];
  if (report) {
    // Each bucket's cost counts from the bucket's start; the last point is the status's own total,
    // which also holds calls still settling.
    let sum = 0;
    const byX = new Map<number, number>();
    for (const b of buckets) byX.set(b.x, (byX.get(b.x) ?? 0) + b.cost);
    for (const x of xs) {
      if (x > now) spend.push(null);
      else if (x === now) spend.push(status.spent_usd);
      else {
        sum += byX.get(x) ?? 0;
        spend.push(sum);
      }
    }
  } else {
    for (const x of xs) spend.push(x === start ? 0 : x === now ? status.spent_usd : null);
  }
  const forecast = xs.map((x) =>
    x === now ? status.spent_usd : end !== null && x === end ? status.forecast_usd : null,
  );
  const limitLine = xs.map((x) => (x === start || x === (end ?? now) ? limit : null));
  return {
    xs,
    spend: [{ label: report ? 'Spend (analytics report)' : 'Spend', values: spend }],
    guides: [
      ...(end !== null ? [{ label: 'Forecast', values: forecast, color: '#ea580c' }] : []),
      { label: 'Limit', values: limitLine, color: '#dc2626' },
    ],
  };
}

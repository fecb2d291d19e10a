// Budget periods on UTC calendar boundaries: a day from 00:00, a week from Monday 00:00, a month
// from the 1st; `total` runs from the budget's creation and never ends.
import type { BudgetPeriod } from '../store/budgets.ts';

const DAY_MS = 86_400_000;

export interface PeriodBounds {
  /** Epoch ms. */
  start: number;
  /** Epoch ms; null for `total`. */
  end: number | null;
}

export function periodBounds(period: BudgetPeriod, now: number, createdAt: string): PeriodBounds {
  const d = new Date(now);
  switch (period) {
    case 'daily': {
      const start = Math.floor(now / DAY_MS) * DAY_MS;
      return { start, end: start + DAY_MS };
    }
    case 'weekly': {
      const day = Math.floor(now / DAY_MS) * DAY_MS;
      // getUTCDay: 0 = Sunday; Monday starts the week.
      const start = day - ((d.getUTCDay() + 6) % 7) * DAY_MS;
      return { start, end: start + 7 * DAY_MS };
    }
    case 'monthly':
      return {
        start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
        end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
      };
    case 'total':
      return { start: Date.parse(createdAt), end: null };
  }
}

/** Spend projected linearly to the period's end (what it is so far for open-ended periods). */
export function forecast(spentUsd: number, bounds: PeriodBounds, now: number): number {
  if (bounds.end === null || now <= bounds.start) return spentUsd;
  const elapsed = Math.max(1, now - bounds.start);
  return Math.round(((spentUsd * (bounds.end - bounds.start)) / elapsed) * 1e6) / 1e6;
}

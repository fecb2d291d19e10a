// Budget events: `budget.threshold_reached` and `budget.exceeded`, each recorded once per (budget,
// member, period, mark) by the store, so restarts and other instances never repeat one.
//
// Two ways a counter moves past a mark. A settled call moves it by its cost: every mark between the
// old and the new spend is announced, in order. A rebuild (the budget was just created or changed, or
// the gateway started) sets it at once to what the request log already holds: nothing was "crossed"
// by a call, but a budget created past its limit must not stay silent, so the state it is in is
// announced: the highest threshold reached, and `budget.exceeded` when spend is at or past the limit.
import type { BudgetSpend } from '../ports/counters.ts';
import type { BudgetRecord, BudgetStore } from '../store/budgets.ts';
import { memberOfKey, periodStartOfKey } from './checks.ts';

const round6 = (usd: number) => Math.round(usd * 1e6) / 1e6;

export type AlertStore = Pick<BudgetStore, 'markAlert'>;

/** The thresholds (fractions) whose mark lies in (previous, spent], ascending. */
function crossedThresholds(b: BudgetRecord, s: BudgetSpend): number[] {
  return b.thresholds.filter((t) => s.previousUsd < t * b.limitUsd && s.spentUsd >= t * b.limitUsd);
}

/** Whether a settled spend crossed any mark of its budget (most calls cross none, and allocate nothing). */
export function crossesMark(b: BudgetRecord, s: BudgetSpend): boolean {
  if (s.spentUsd <= s.previousUsd) return false;
  const crossed = (mark: number) => s.previousUsd < mark && s.spentUsd >= mark;
  return b.thresholds.some((t) => crossed(t * b.limitUsd)) || crossed(b.limitUsd);
}

/**
 * Records the events of one budget counter. `catchUp` is a rebuild's announcement of the state
 * (previousUsd is then 0): only the highest threshold reached, not every one below it.
 */
export async function announce(store: AlertStore, b: BudgetRecord, s: BudgetSpend, catchUp = false): Promise<void> {
  const member = memberOfKey(s.key);
  const periodStart = new Date(periodStartOfKey(s.key)).toISOString();
  const base = {
    budget_id: b.id,
    name: b.name,
    scope: { ...b.scope },
    ...(member !== '' ? { member } : {}),
    spent_usd: round6(s.spentUsd),
    limit_usd: b.limitUsd,
    period_start: periodStart,
  };
  const crossed = crossedThresholds(b, s);
  for (const t of catchUp ? crossed.slice(-1) : crossed) {
    await store.markAlert(b.id, member, periodStart, String(t), {
      orgId: b.orgId,
      type: 'budget.threshold_reached',
      data: { ...base, threshold: t },
    });
  }
  if (s.previousUsd < b.limitUsd && s.spentUsd >= b.limitUsd) {
    await store.markAlert(b.id, member, periodStart, 'exceeded', {
      orgId: b.orgId,
      type: 'budget.exceeded',
      data: { ...base, action: b.action },
    });
  }
}

// What the management API asks of the limits feature about a budget.
import type { BudgetRecord } from '../store/budgets.ts';

export interface BudgetStatus {
  spent_usd: number;
  reserved_usd: number;
  remaining_usd: number;
  period_start: string;
  /** Null for `period: total`. */
  period_end: string | null;
  exceeded: boolean;
  /** Spend projected linearly to the period's end (equal to spent for `total`). */
  forecast_usd: number;
}

export interface BudgetStatusSource {
  /** `member` names one member of a per-member budget (an end user, key id, project id or tag value). */
  status(b: BudgetRecord, member: string | null, now?: number): Promise<BudgetStatus>;
  /** The members of a per-member budget with spend or reservations in the current period, most spent first. */
  members(b: BudgetRecord, limit: number, now?: number): Promise<Array<{ member: string; status: BudgetStatus }>>;
  /** Rebuilds the budget's current-period spend from the request log (after create and update). */
  rebuild(b: BudgetRecord): Promise<void>;
}

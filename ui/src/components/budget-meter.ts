// A budget's period at a glance: spend so far against the limit, the linear forecast for the end
// of the period, and the alert thresholds as ticks. Spend past the limit is drawn past the limit
// marker in its own stripe and said in words with how far over it is: a bar that simply filled up
// would read as "at the limit" however far beyond it the spend went.
import { html } from 'htm/preact';
import { int, localTime, usd } from '../format.ts';
import type { Budget, BudgetStatus } from '../types.ts';

function share(spent: number, limit: number): string {
  if (limit <= 0) return '';
  const ratio = spent / limit;
  return ratio < 10 ? ` (${Math.round(ratio * 100)}%)` : ` (${int(Math.round(ratio))}× the limit)`;
}

export function BudgetMeter({ budget, status }: { budget: Budget; status: BudgetStatus }) {
  const limit = budget.limit_usd;
  const spent = status.spent_usd;
  const over = spent > limit;
  const scale = Math.max(limit, status.forecast_usd, spent) || 1;
  const at = (v: number) => `${Math.min(100, (v / scale) * 100)}%`;
  const tone = status.exceeded || over ? 'bad' : status.forecast_usd > limit ? 'warn' : 'ok';
  const overBy = over ? `over the limit by ${usd(spent - limit)}` : status.exceeded ? 'limit reached' : null;
  return html`<div class="meter-block">
    <div
      class=${`meter ${tone}`}
      role="meter"
      aria-label=${`${budget.name}: spent of limit`}
      aria-valuemin="0"
      aria-valuemax=${Math.max(limit, spent)}
      aria-valuenow=${spent}
      aria-valuetext=${`${usd(spent)} of ${usd(limit)}${share(spent, limit)}${overBy ? `, ${overBy}` : ''}`}
    >
      <span class="meter-fill" style=${{ width: at(Math.min(spent, limit)) }}></span>
      ${over ? html`<span class="meter-over" style=${{ left: at(limit), width: `calc(${at(spent)} - ${at(limit)})` }} title=${overBy}></span>` : null}
      <span class="meter-forecast" style=${{ left: at(status.forecast_usd) }} title="Forecast"></span>
      <span class="meter-limit" style=${{ left: at(limit) }} title="Limit"></span>
      ${budget.thresholds.map(
        (t) =>
          html`<span class="meter-tick" style=${{ left: at(t * limit) }} title=${`Threshold ${Math.round(t * 100)}%`}></span>`,
      )}
    </div>
    <p class="meter-text">
      <strong>${usd(spent)}</strong> of ${usd(limit)} spent${share(spent, limit)}${status.reserved_usd > 0 ? html` (+${usd(status.reserved_usd)} reserved)` : null}
      ${overBy ? html` · <strong class="bad" data-testid="budget-over">${overBy}</strong>` : null} · forecast <strong class=${tone}>${usd(status.forecast_usd)}</strong>
      ${status.period_end ? html` by ${localTime(status.period_end)}` : ' (total: no period end)'}
    </p>
  </div>`;
}

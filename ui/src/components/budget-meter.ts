// A budget's period at a glance: spend so far against the limit, the linear forecast for the end
// of the period, and the alert thresholds as ticks.
import { html } from 'htm/preact';
import { localTime, usd } from '../format.ts';
import type { Budget, BudgetStatus } from '../types.ts';

export function BudgetMeter({ budget, status }: { budget: Budget; status: BudgetStatus }) {
  const limit = budget.limit_usd;
  const scale = Math.max(limit, status.forecast_usd, status.spent_usd) || 1;
  const at = (v: number) => `${Math.min(100, (v / scale) * 100)}%`;
  const tone = status.exceeded ? 'bad' : status.forecast_usd > limit ? 'warn' : 'ok';
  return html`<div class="meter-block">
    <div
      class=${`meter ${tone}`}
      role="meter"
      aria-label=${`${budget.name}: spent of limit`}
      aria-valuemin="0"
      aria-valuemax=${limit}
      aria-valuenow=${status.spent_usd}
      aria-valuetext=${`${usd(status.spent_usd)} of ${usd(limit)}`}
    >
      <span class="meter-fill" style=${{ width: at(status.spent_usd) }}></span>
      <span class="meter-forecast" style=${{ left: at(status.forecast_usd) }} title="Forecast"></span>
      <span class="meter-limit" style=${{ left: at(limit) }} title="Limit"></span>
      ${budget.thresholds.map(
        (t) =>
          html`<span class="meter-tick" style=${{ left: at(t * limit) }} title=${`Threshold ${Math.round(t * 100)}%`}></span>`,
      )}
    </div>
    <p class="meter-text">
      <strong>${usd(status.spent_usd)}</strong> of ${usd(limit)} spent
      ${status.reserved_usd > 0 ? html` (+${usd(status.reserved_usd)} reserved)` : null} ·
      forecast <strong class=${tone}>${usd(status.forecast_usd)}</strong>
      ${status.period_end ? html` by ${localTime(status.period_end)}` : ' (total: no period end)'}
      ${status.exceeded ? html` · <strong class="bad">exceeded</strong>` : null}
    </p>
  </div>`;
}

// Budgets: each one's spend this period against its limit and forecast, its thresholds, a
// burn-down chart, per-member spend; create, change the limit and thresholds, delete.

import { html } from 'htm/preact';
import { useMemo, useState } from 'preact/hooks';
import { WriteOnly } from '../access.ts';
import { del, enc, get, patch, post } from '../api.ts';
import { BudgetMeter } from '../components/budget-meter.ts';
import { Chart } from '../components/chart.ts';
import { Badge, ConfirmButton, Empty, ErrorBox, Loading, Section } from '../components/common.ts';
import { ManagedBadge, UnlessManaged } from '../components/managed.ts';
import { usd } from '../format.ts';
import { useAction, useAll, useApi } from '../hooks.ts';
import { burnDown } from '../lib/burndown.ts';
import { autoGranularity } from '../lib/range.ts';
import type { PageProps } from '../page.ts';
import { projectName, useProjects } from '../projects.ts';
import type { Budget, BudgetStatus, Page, Project, Report } from '../types.ts';
import { BudgetCreate } from './budget-create.ts';

const PER: Record<string, string> = {
  daily: 'per UTC day',
  weekly: 'per week',
  monthly: 'per month',
  total: 'in total',
};

/** The report can stand for the budget's spend when it filters the same calls. */
function reportQuery(b: Budget, status: BudgetStatus, now: number): Record<string, string> | null {
  if (b.models !== null) return null;
  const span = now - Date.parse(status.period_start);
  const base = { start: status.period_start, end: new Date(now).toISOString(), granularity: autoGranularity(span) };
  if (b.scope.type === 'org') return base;
  if (b.scope.type === 'project' && b.scope.id) return { ...base, project_id: b.scope.id };
  if (b.scope.type === 'tag' && b.scope.value?.includes('=')) {
    const [k, ...v] = b.scope.value.split('=');
    return { ...base, tags: JSON.stringify({ [k as string]: v.join('=') }) };
  }
  return null;
}

function BurnDownChart({ budget, status }: { budget: Budget; status: BudgetStatus }) {
  const now = useMemo(() => Date.now(), []);
  const q = reportQuery(budget, status, now);
  const report = useAll(JSON.stringify(q), (signal) =>
    q ? get<Report>('/analytics/report', q, signal) : Promise.resolve(null),
  );
  const data = useMemo(
    () => (report.data === undefined ? null : burnDown(status, budget.limit_usd, now, report.data?.series ?? null)),
    [report.data, status, budget.limit_usd, now],
  );
  if (report.error) return html`<${ErrorBox} error=${report.error} title="The spend report failed" />`;
  if (!data) return html`<${Loading} what="spend" />`;
  return html`<${Chart} id=${`burndown-${budget.id}`} title=${`Burn-down: ${budget.name}`} xs=${data.xs} lines=${data.spend} dashed=${data.guides} format=${usd} height=${180} />
    ${q ? null : html`<p class="hint">The analytics report cannot select this budget's calls (${budget.models ? 'model patterns' : `${budget.scope.type} scope`}), so spend is drawn from the period start to today's total.</p>`}`;
}

function scopeText(b: Budget, projects: Project[]): string {
  const s = b.scope;
  if (s.type === 'org') return 'the whole organization';
  if (s.type === 'project') return s.id ? `project ${projectName(projects, s.id)}` : 'each project separately';
  if (s.type === 'tag') return s.value ? `tag ${s.value}` : 'each tag set separately';
  return s.id ? `${s.type.replace('_', ' ')} ${s.id}` : `each ${s.type.replace('_', ' ')} separately`;
}

function Edit({ budget, onSaved }: { budget: Budget; onSaved: () => void }) {
  const save = useAction((body: Record<string, unknown>) => patch<Budget>(`/budgets/${enc(budget.id)}`, body));
  return html`<form
    class="form-grid"
    aria-label=${`Change ${budget.name}`}
    onSubmit=${async (e: Event) => {
      e.preventDefault();
      const d = new FormData(e.currentTarget as HTMLFormElement);
      const thresholds = String(d.get('thresholds') ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '')
        .map((t) => (t.endsWith('%') ? Number(t.slice(0, -1)) / 100 : Number(t)));
      if (await save.run({ limit_usd: Number(d.get('limit_usd')), thresholds, action: String(d.get('action')) }))
        onSaved();
    }}
  >
    <label>Limit (USD) <input name="limit_usd" type="number" min="0" step="any" required value=${budget.limit_usd} /></label>
    <label>Thresholds <input name="thresholds" value=${budget.thresholds.join(', ')} placeholder="0.5, 0.8, 1.0" /></label>
    <label>Action
      <select name="action">
        <option value="block" selected=${budget.action === 'block'}>block (402 when over)</option>
        <option value="alert_only" selected=${budget.action === 'alert_only'}>alert only</option>
      </select>
    </label>
    <div class="form-actions"><button type="submit" disabled=${save.pending}>Save changes</button></div>
    <${ErrorBox} error=${save.error} title="The budget was not changed" />
  </form>`;
}

function BudgetCard({
  b,
  projects,
  focused,
  onChanged,
}: {
  b: Budget;
  projects: Project[];
  focused: boolean;
  onChanged: () => void;
}) {
  const [open, setOpen] = useState<'chart' | 'edit' | null>(focused ? 'chart' : null);
  const remove = useAction(() => del<Budget>(`/budgets/${enc(b.id)}`));
  const status = b.status ?? null;
  return html`<li class="card" data-testid="budget" id=${`budget-${b.id}`}>
    <div class="card-head">
      <h3>${b.name}<${ManagedBadge} item=${b} /></h3>
      <span class="badges">
        <${Badge} tone="neutral">${b.period}<//> <${Badge} tone="neutral">${b.action === 'block' ? 'blocks' : 'alerts only'}<//>${status?.exceeded ? html` <${Badge} tone="bad">${status.spent_usd > b.limit_usd ? 'over limit' : 'limit reached'}<//>` : null}
      </span>
    </div>
    <p class="hint">
      ${usd(b.limit_usd)} ${PER[b.period] ?? b.period} for ${scopeText(b, projects)}
      ${b.models ? html` · models ${b.models.join(', ')}` : null} · alerts at ${b.thresholds.map((t) => `${Math.round(t * 100)}%`).join(', ')}
    </p>
    ${status ? html`<${BudgetMeter} budget=${b} status=${status} />` : null}
    ${
      b.members
        ? b.members.length === 0
          ? html`<p class="hint">Per member: no member has spent this period yet.</p>`
          : html`<div class="table-wrap"><table>
              <caption class="sr-only">Members with spend this period</caption>
              <thead><tr><th scope="col">Member</th><th scope="col">Spend against limit</th></tr></thead>
              <tbody>${b.members.map((m) => html`<tr><td>${m.member}</td><td><${BudgetMeter} budget=${b} status=${m.status} /></td></tr>`)}</tbody>
            </table></div>`
        : null
    }
    <div class="form-actions">
      ${status ? html`<button type="button" aria-expanded=${open === 'chart'} onClick=${() => setOpen(open === 'chart' ? null : 'chart')}>Burn-down</button>` : null}
      <${UnlessManaged} item=${b}>
        <button type="button" aria-expanded=${open === 'edit'} onClick=${() => setOpen(open === 'edit' ? null : 'edit')}>Change limit or thresholds</button>
        <${ConfirmButton} label="Delete" confirm=${`Delete ${b.name}? Calls stop counting against it at once.`} onConfirm=${async () => (await remove.run()) && onChanged()} />
      <//>
    </div>
    <${ErrorBox} error=${remove.error} title="Delete failed" />
    ${open === 'chart' && status ? html`<${BurnDownChart} budget=${b} status=${status} />` : null}
    ${open === 'edit' ? html`<${Edit} budget=${b} onSaved=${onChanged} />` : null}
  </li>`;
}

export function BudgetsPage({ loc }: PageProps) {
  const projects = useProjects(true);
  const list = useApi<Page<Budget>>('/budgets', { limit: 200 });
  const focus = loc.query.get('id');
  const create = useAction((body: Record<string, unknown>) => post<Budget>('/budgets', body));
  return html`<h1 tabindex="-1">Budgets</h1>
    <${ErrorBox} error=${list.error} title="Budgets failed to load" />
    ${list.loading && !list.data ? html`<${Loading} what="budgets" />` : null}
    ${
      list.data && list.data.data.length === 0
        ? html`<${Empty} title="No budgets yet."><p>Create one below to cap spend (402 when a call does not fit) or to be alerted at thresholds.</p><//>`
        : null
    }
    ${list.data && list.data.data.length > 0 ? html`<ul class="cards">${list.data.data.map((b) => html`<${BudgetCard} key=${b.id} b=${b} projects=${projects} focused=${b.id === focus} onChanged=${list.reload} />`)}</ul>` : null}
    <${WriteOnly}><${Section} title="Create a budget" id="create-budget">
      <${BudgetCreate} projects=${projects} action=${create} onCreated=${list.reload} />
    <//><//>`;
}

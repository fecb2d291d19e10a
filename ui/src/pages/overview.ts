// Overview: requests, cost, errors and latency over time from /analytics/report (rollups, so it
// stays fast at any log volume), with the busiest models, providers, projects and end users, the
// cache hit rate and the budgets' burn-down beside it.
import { html } from 'htm/preact';
import { useMemo } from 'preact/hooks';
import type { Query } from '../api.ts';
import { Chart } from '../components/chart.ts';
import { Empty, ErrorBox, Loading, Section, Stat, Updating } from '../components/common.ts';
import { compact, fromLocalInput, int, ms, pct, toLocalInput, usd } from '../format.ts';
import { useApi } from '../hooks.ts';
import { RANGES, resolveWindow } from '../lib/range.ts';
import { bucketSeconds, metricLines } from '../lib/series.ts';
import type { PageProps } from '../page.ts';
import { useProjects } from '../projects.ts';
import { setQuery } from '../router.ts';
import type { Report, ReportTotals } from '../types.ts';
import { BudgetPanel, CachePanel, TopLists } from './overview-panels.ts';

const GROUPS = [
  ['', 'No grouping'],
  ['model', 'Model'],
  ['provider', 'Provider'],
  ['project', 'Project'],
  ['end_user', 'End user'],
  ['tag', 'Tag…'],
] as const;

function delta(now: number, before: number | undefined): string | undefined {
  if (before === undefined || before === 0) return undefined;
  const d = (now - before) / before;
  return `${d >= 0 ? '+' : ''}${(d * 100).toFixed(0)}% vs previous period`;
}

function Totals({ totals, previous }: { totals: ReportTotals; previous?: ReportTotals }) {
  return html`<div class="stats" data-testid="totals">
    <${Stat} label="Requests" value=${int(totals.requests)} hint=${delta(totals.requests, previous?.requests)} />
    <${Stat} label="Cost" value=${usd(totals.cost_usd)} hint=${delta(totals.cost_usd, previous?.cost_usd)} />
    <${Stat} label="Error rate" value=${totals.requests === 0 ? '—' : pct(totals.error_rate)} hint=${`${int(totals.errors)} errors`} />
    <${Stat} label="Latency p50" value=${ms(totals.p50_latency_ms)} />
    <${Stat} label="Latency p95" value=${ms(totals.p95_latency_ms)} />
    <${Stat} label="Tokens in" value=${compact(totals.input_tokens)} hint=${int(totals.input_tokens)} />
    <${Stat} label="Tokens out" value=${compact(totals.output_tokens)} hint=${int(totals.output_tokens)} />
  </div>`;
}

function Charts({ report }: { report: Report }) {
  const grouped = report.group_by !== null;
  const xs = useMemo(() => bucketSeconds(report.series), [report]);
  const charts = useMemo(
    () => ({
      requests: metricLines(report.series, xs, [{ metric: 'requests', label: 'requests' }], grouped),
      cost: metricLines(report.series, xs, [{ metric: 'cost_usd', label: 'cost' }], grouped),
      errors: metricLines(report.series, xs, [{ metric: 'errors', label: 'errors' }], grouped),
      latency: grouped
        ? metricLines(report.series, xs, [{ metric: 'p95_latency_ms', label: 'p95' }], true)
        : metricLines(
            report.series,
            xs,
            [
              { metric: 'p50_latency_ms', label: 'p50' },
              { metric: 'p95_latency_ms', label: 'p95' },
            ],
            false,
          ),
    }),
    [report, xs, grouped],
  );
  const n = (v: number) => int(v);
  const none = 'No requests in this period';
  const quiet = report.totals.requests === 0;
  return html`<div class="grid-2 charts">
    <${Chart} id="requests" title="Requests" xs=${xs} lines=${charts.requests} format=${n} integer empty=${none} />
    <${Chart} id="cost" title="Cost (USD)" xs=${xs} lines=${charts.cost} format=${usd} empty=${quiet ? none : 'No cost in this period (cache hits and free calls cost $0)'} />
    <${Chart} id="errors" title="Errors (4xx and 5xx)" xs=${xs} lines=${charts.errors} format=${n} integer empty=${quiet ? none : 'No errors in this period'} />
    <${Chart}
      id="latency"
      title=${grouped ? 'Latency p95 per group' : 'Latency p50 / p95'}
      xs=${xs}
      lines=${charts.latency}
      format=${ms}
      empty=${none}
    />
  </div>`;
}

/**
 * The report behind the totals and charts. Its own component, placed before the side panels, so
 * its request goes out first (effects run in tree order) and the charts never wait behind them.
 */
function MainReport({ query }: { query: Query }) {
  const main = useApi<Report>('/analytics/report', query);
  return html`<${Updating} when=${main.loading && main.data !== undefined} />
    <${ErrorBox} error=${main.error} title="The analytics report failed" />
    ${main.loading && !main.data ? html`<${Loading} what="the report" />` : null}
    ${
      main.data
        ? html`<${Totals} totals=${main.data.totals} previous=${main.data.comparison?.totals} />
            ${
              main.data.totals.requests === 0
                ? html`<${Empty} title="No requests in this range.">
                    <p>
                      Widen the range, or send traffic through the gateway
                      (<code>POST /alpha/v1/chat/completions</code> or <code>POST /beta/v1/messages</code> with an API key);
                      it shows here within a second.
                    </p>
                  <//>`
                : null
            }
            <${Charts} report=${main.data} />`
        : null
    }`;
}

export function OverviewPage({ session, loc }: PageProps) {
  const org = session.scope === 'org';
  const projects = useProjects(org);
  const q = loc.query;
  // "Now" moves only when the address does, so re-renders reuse the same report.
  const win = useMemo(() => resolveWindow(q, Date.now()), [loc.href]);
  const groupParam = q.get('group_by') ?? '';
  const tagKey = groupParam.startsWith('tag:') ? groupParam.slice(4) : '';
  const groupKind = groupParam.startsWith('tag:') || groupParam === 'tag' ? 'tag' : groupParam;
  const groupBy = groupKind === 'tag' ? (tagKey ? `tag:${tagKey}` : '') : groupParam;
  const projectId = org ? (q.get('project_id') ?? '') : '';
  const base = { start: win.start, end: win.end, granularity: win.granularity, project_id: projectId || undefined };

  const update = (patch: Record<string, string | undefined>) => {
    const next: Record<string, string | undefined> = {
      range: win.range,
      start: win.range === 'custom' ? (q.get('start') ?? undefined) : undefined,
      end: win.range === 'custom' ? (q.get('end') ?? undefined) : undefined,
      granularity: q.get('granularity') ?? undefined,
      group_by: groupParam || undefined,
      project_id: projectId || undefined,
      ...patch,
    };
    setQuery(next);
  };
  const onRange = (e: Event) => {
    const v = (e.target as HTMLSelectElement).value;
    if (v === 'custom') update({ range: 'custom', start: win.start, end: win.end });
    else update({ range: v, start: undefined, end: undefined });
  };

  return html`<h1 tabindex="-1">Overview</h1>
    <form class="toolbar" aria-label="Report settings" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Range
        <select name="range" value=${win.range} onChange=${onRange}>
          ${RANGES.map((r) => html`<option value=${r.id}>${r.label}</option>`)}
          <option value="custom">Custom…</option>
        </select>
      </label>
      ${
        win.range === 'custom'
          ? html`<label>From
              <input type="datetime-local" name="start" value=${toLocalInput(win.start)}
                onChange=${(e: Event) => update({ start: fromLocalInput((e.target as HTMLInputElement).value) })} />
            </label>
            <label>To
              <input type="datetime-local" name="end" value=${toLocalInput(win.end)}
                onChange=${(e: Event) => update({ end: fromLocalInput((e.target as HTMLInputElement).value) })} />
            </label>`
          : null
      }
      <label>Buckets
        <select name="granularity" value=${q.get('granularity') ?? ''}
          onChange=${(e: Event) => update({ granularity: (e.target as HTMLSelectElement).value || undefined })}>
          <option value="">Auto (${win.granularity})</option>
          <option value="hour">Hourly</option>
          <option value="day">Daily (UTC days)</option>
        </select>
      </label>
      <label>Group by
        <select name="group_by" value=${groupKind}
          onChange=${(e: Event) => {
            const v = (e.target as HTMLSelectElement).value;
            update({ group_by: v === 'tag' ? 'tag:' : v || undefined });
          }}>
          ${GROUPS.map(([v, label]) => html`<option value=${v}>${label}</option>`)}
        </select>
      </label>
      ${
        groupKind === 'tag'
          ? html`<label>Tag key
              <input name="tag_key" value=${tagKey} placeholder="team"
                onChange=${(e: Event) => update({ group_by: `tag:${(e.target as HTMLInputElement).value.trim()}` })} />
            </label>`
          : null
      }
      ${
        org
          ? html`<label>Project
              <select name="project_id" value=${projectId}
                onChange=${(e: Event) => update({ project_id: (e.target as HTMLSelectElement).value || undefined })}>
                <option value="">All projects</option>
                ${projects.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
              </select>
            </label>`
          : null
      }
    </form>
    ${win.problem ? html`<p class="notice" role="status">${win.problem}</p>` : null}
    ${groupKind === 'tag' && !tagKey ? html`<p class="notice" role="status">Enter the tag key to group by (as sent in svc:tags or X-Svc-User-Tags).</p>` : null}
    <${MainReport} query=${{ ...base, group_by: groupBy || undefined, include_comparison: true }} />
    <${TopLists} base=${base} projects=${projects} />
    <div class="grid-2">
      <${Section} title="Semantic cache" id="cache-summary">
        ${org ? html`<${CachePanel} since=${win.start} projectId=${projectId} />` : html`<p class="hint">Cache stats need an org-wide key.</p>`}
      <//>
      <${Section} title="Budget burn-down" id="budget-summary">
        ${org ? html`<${BudgetPanel} />` : html`<p class="hint">Budgets need an org-wide key.</p>`}
      <//>
    </div>`;
}

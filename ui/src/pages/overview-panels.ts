// The overview's side panels: the busiest models, providers, projects and end users (one grouped
// report each), the semantic cache's hit rate over every project, and each budget's burn-down.
import { html } from 'htm/preact';
import { enc, get, type Query } from '../api.ts';
import { BudgetMeter } from '../components/budget-meter.ts';
import { Bars } from '../components/chart.ts';
import { Empty, ErrorBox, Loading, Section, Stat } from '../components/common.ts';
import { int, pct, usd } from '../format.ts';
import { useAll, useApi } from '../hooks.ts';
import { type GroupTotal, groupTotals } from '../lib/series.ts';
import { projectName, projectsPromise } from '../projects.ts';
import { href } from '../router.ts';
import type { Budget, CacheStats, Page, Project, Report } from '../types.ts';

const DIMS = [
  { dim: 'model', title: 'Top models', filter: 'model' },
  { dim: 'provider', title: 'Top providers', filter: 'provider' },
  { dim: 'project', title: 'Top projects', filter: 'project_id' },
  { dim: 'end_user', title: 'Top end users', filter: 'end_user' },
] as const;

const TOP = 8;

function TopTable({ rows, filter, label }: { rows: GroupTotal[]; filter: string; label: (g: string) => string }) {
  if (rows.length === 0) return html`<p class="hint">No traffic in this range.</p>`;
  const linkable = (g: string) => g !== '(none)' && g !== 'other';
  return html`<${Bars}
    label="Requests"
    format=${int}
    items=${rows.slice(0, TOP).map((r) => ({
      label: label(r.group),
      value: r.requests,
      note: `${usd(r.cost_usd)}${r.errors > 0 ? ` · ${int(r.errors)} err` : ''}`,
      href: linkable(r.group) ? href('/logs', { [filter]: r.group }) : undefined,
    }))}
  />
  ${rows.length > TOP ? html`<p class="hint">and ${int(rows.length - TOP)} more</p>` : null}`;
}

export function TopLists({ base, projects }: { base: Query; projects: Project[] }) {
  const key = JSON.stringify(base);
  // Day buckets: the lists need each group's total over the window, which is the same at any bucket
  // size (the window stays hour-exact), and a grouped report costs per bucket and group it returns.
  const tops = useAll(key, (signal) =>
    Promise.all(
      DIMS.map((d) => get<Report>('/analytics/report', { ...base, granularity: 'day', group_by: d.dim }, signal)),
    ),
  );
  return html`<div class="grid-4">
    ${DIMS.map((d, i) => {
      const report = tops.data?.[i];
      const label = (g: string) =>
        g === '(none)' ? `(no ${d.dim.replace('_', ' ')})` : d.dim === 'project' ? projectName(projects, g) : g;
      return html`<${Section} title=${d.title} id=${`top-${d.dim}`}>
        ${i === 0 ? html`<${ErrorBox} error=${tops.error} title="The grouped reports failed" />` : null}
        ${report ? html`<${TopTable} rows=${groupTotals(report.series)} filter=${d.filter} label=${label} />` : tops.error ? null : html`<${Loading} />`}
      <//>`;
    })}
  </div>`;
}

interface CacheSummary {
  hits: number;
  misses: number;
  saved: number;
  perProject: Array<{ project: Project; stats: CacheStats }>;
}

async function loadCache(since: string, projectId: string, signal: AbortSignal): Promise<CacheSummary> {
  const all = await projectsPromise();
  // Stats are read from the request log per project, so only projects with the cache on are asked
  // (a project without it has no look-ups to count); the Cache page shows any project's history.
  const chosen = (projectId ? all.filter((p) => p.id === projectId) : all)
    .filter((p) => p.deleted_at === null && p.settings.semantic_cache?.enabled)
    .slice(0, 50);
  const stats = await Promise.all(
    chosen.map((p) => get<CacheStats>(`/projects/${enc(p.id)}/cache`, { since }, signal)),
  );
  const perProject = chosen.map((project, i) => ({ project, stats: stats[i] as CacheStats }));
  return {
    hits: stats.reduce((n, s) => n + s.hits, 0),
    misses: stats.reduce((n, s) => n + s.misses, 0),
    saved: stats.reduce((n, s) => n + s.saved_cost_usd, 0),
    perProject,
  };
}

export function CachePanel({ since, projectId }: { since: string; projectId: string }) {
  const cache = useAll(`${since}|${projectId}`, (signal) => loadCache(since, projectId, signal));
  if (cache.error) return html`<${ErrorBox} error=${cache.error} title="Cache stats failed" />`;
  const c = cache.data;
  if (!c) return html`<${Loading} what="cache stats" />`;
  const looked = c.hits + c.misses;
  if (c.perProject.length === 0)
    return html`<${Empty} title="No project has the semantic cache on.">
      <p>Turn it on for a project on the <a href="/ui/cache">Cache</a> page to answer repeated prompts from the cache; its hit rate then shows here.</p>
    <//>`;
  return html`<div class="stats">
      <${Stat} label="Hit rate" value=${looked === 0 ? '—' : pct(c.hits / looked)} hint=${`${int(c.hits)} hits, ${int(c.misses)} misses`} />
      <${Stat} label="Saved" value=${usd(c.saved)} hint="upstream cost the hits avoided" />
    </div>
    ${
      looked === 0
        ? html`<p class="hint">No cache look-ups in this range.</p>`
        : html`<${Bars}
            label="Hit rate per project"
            format=${(v: number) => pct(v)}
            items=${c.perProject
              .filter((p) => p.stats.hit_rate !== null)
              .map((p) => ({ label: p.project.name, value: p.stats.hit_rate }))}
          />`
    }`;
}

export function BudgetPanel() {
  const budgets = useApi<Page<Budget>>('/budgets', { limit: 200 });
  if (budgets.error) return html`<${ErrorBox} error=${budgets.error} title="Budgets failed to load" />`;
  if (!budgets.data) return html`<${Loading} what="budgets" />`;
  const list = budgets.data.data;
  if (list.length === 0)
    return html`<${Empty} title="No budgets yet."><p><a href="/ui/budgets">Create a budget</a> to cap spend and get alerts at thresholds.</p><//>`;
  return html`<ul class="plain">
    ${list.slice(0, 8).map((b) => {
      const status = b.status ?? b.members?.[0]?.status ?? null;
      return html`<li>
        <a href=${href('/budgets', { id: b.id })}>${b.name}</a>
        <span class="hint"> · ${b.period}${b.status === null ? ` · per member (top: ${b.members?.[0]?.member ?? 'none yet'})` : ''}</span>
        ${status ? html`<${BudgetMeter} budget=${b} status=${status} />` : html`<p class="hint">No spend yet.</p>`}
      </li>`;
    })}
  </ul>`;
}

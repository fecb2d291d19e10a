// Routing configs: the live configs (current versions) and how their decisions went.

import { html } from 'htm/preact';
import { WriteOnly } from '../access.ts';
import { Empty, ErrorBox, Loading, Section, Time } from '../components/common.ts';
import { ManagedBadge } from '../components/managed.ts';
import { PagedList, usePaged } from '../components/paged-list.ts';
import { type Column, HeadRow } from '../components/table-head.ts';
import { int, pct } from '../format.ts';
import { useApi } from '../hooks.ts';
import type { PageProps } from '../page.ts';
import { projectName, useProjects } from '../projects.ts';
import type { DecisionSummary, RoutingConfig } from '../types.ts';

const DECISION_COLUMNS: readonly Column[] = [
  'Config',
  'Policy',
  { label: 'Requests', num: true },
  { label: 'Errors', num: true },
  { label: 'Attempts / request', num: true },
  { label: 'Fallback rate', num: true },
  'Served by',
  'Rules / variants',
  'Skip and failure reasons',
];

const CONFIG_COLUMNS: readonly Column[] = [
  'Name',
  'Call as',
  'Strategy',
  { label: 'Version', num: true },
  'Project',
  'Updated',
];

function top(map: Record<string, number>, n = 3): string {
  const entries = Object.entries(map).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return '—';
  return entries
    .slice(0, n)
    .map(([k, v]) => `${k} (${int(v)})`)
    .join(', ');
}

function Decisions() {
  const decisions = useApi<{ data: DecisionSummary[]; sampled_requests: number }>('/analytics/decisions');
  if (decisions.error) return html`<${ErrorBox} error=${decisions.error} title="The decisions summary failed" />`;
  if (!decisions.data) return html`<${Loading} what="decisions" />`;
  const rows = decisions.data.data;
  if (rows.length === 0)
    return html`<${Empty} title="No calls through a routing config yet.">
      <p>Send a request with <code>"model": "@&lt;slug&gt;"</code>; each config's attempts, fallbacks and reasons add up here.</p>
    <//>`;
  return html`<p class="hint">From ${int(decisions.data.sampled_requests)} sampled requests.</p>
    <div class="table-wrap">
      <table data-testid="decisions-table">
        <thead>
          <${HeadRow} columns=${DECISION_COLUMNS} />
        </thead>
        <tbody>
          ${rows.map(
            (d) => html`<tr>
              <td><a href=${`/ui/logs?model=${encodeURIComponent(`@${d.slug}`)}`}>@${d.slug}</a> <small>v${d.versions.join(', v')}</small></td>
              <td>${d.policy}</td>
              <td class="num">${int(d.requests)}</td>
              <td class="num">${int(d.errors)}</td>
              <td class="num">${d.avg_attempts.toFixed(2)}</td>
              <td class="num">${pct(d.fallback_rate)}</td>
              <td>${top(d.served_by)}</td>
              <td>${top({ ...d.matched_rules, ...d.variants })}</td>
              <td>${top(d.reasons)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

export function ConfigsPage({ session }: PageProps) {
  const projects = useProjects(session.scope === 'org');
  const configs = usePaged<RoutingConfig>('/routing-configs', { limit: 50 });
  return html`<h1 tabindex="-1">Routing configs</h1>
    <${WriteOnly}><p class="toolbar"><a class="button primary" href="/ui/configs/new">New routing config</a></p><//>
    <${Section} title="Configs" id="configs">
      <${PagedList}
        paged=${configs}
        what="configs"
        errorTitle="Routing configs failed to load"
        empty=${html`<${Empty} title="No routing configs yet.">
          <${WriteOnly}><p><a href="/ui/configs/new">Create one</a> from a template (fallback, cost-optimized, A/B test, …), then call it with <code>"model": "@slug"</code>.</p><//>
        <//>`}
        rows=${(rows: RoutingConfig[]) => html`<div class="table-wrap">
          <table data-testid="configs-table">
            <thead>
              <${HeadRow} columns=${CONFIG_COLUMNS} />
            </thead>
            <tbody>
              ${rows.map(
                (c) => html`<tr>
                  <td><a href=${`/ui/configs/${encodeURIComponent(c.id)}`}>${c.name}</a><${ManagedBadge} item=${c} /></td>
                  <td class="mono">${c.model}</td>
                  <td>${c.strategy}</td>
                  <td class="num">${c.version}</td>
                  <td>${c.project_id ? projectName(projects, c.project_id) : 'all projects'}</td>
                  <td><${Time} iso=${c.updated_at} /></td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
      />
    <//>
    <${Section} title="Decisions summary" id="decisions"><${Decisions} /><//>`;
}

// The logs list. Status, latency, cost and cache are what a reader scans for, so they must be on
// screen without scrolling sideways: the table has a fixed layout (each column its own width, the
// model column takes the rest and long names end in an ellipsis, whole in their title), and below
// 1200 px each row becomes a block of labelled fields (data-label) that wraps to the width it has.
import { html } from 'htm/preact';
import { Badge, StatusBadge, Time } from '../components/common.ts';
import { type Column, HeadRow } from '../components/table-head.ts';
import { int, ms, usd } from '../format.ts';
import { projectName, type useProjects } from '../projects.ts';
import type { LogSummary } from '../types.ts';

/** What ran, in one line: the model served and the vendor it ran on, when they add to the one asked for. */
function servedBy(r: LogSummary): string | null {
  const used = r.model_used && r.model_used !== r.model_requested ? `→ ${r.model_used}` : null;
  const via = r.provider ? `via ${r.provider}` : null;
  return [used, via].filter((x) => x !== null).join(' ') || null;
}

/**
 * The columns in order: class, fixed width (the model's takes what is left) and heading; the project
 * column only on org-wide views.
 */
const COLUMNS: ReadonlyArray<{ name: string; width?: string; head: Column }> = [
  { name: 'c-time', width: '7.25rem', head: 'Time' },
  { name: 'c-request', width: '9rem', head: 'Request' },
  { name: 'c-project', width: '6rem', head: 'Project' },
  { name: 'c-model', head: 'Model' },
  { name: 'c-status', width: '3.75rem', head: 'Status' },
  { name: 'c-latency', width: '4.75rem', head: { label: 'Latency', num: true } },
  { name: 'c-tokens', width: '6.75rem', head: { label: 'Tokens in / out', num: true } },
  { name: 'c-cost', width: '6.5rem', head: { label: 'Cost', num: true } },
  { name: 'c-cache', width: '3.75rem', head: 'Cache' },
  { name: 'c-user', width: '6rem', head: 'End user' },
];

export function LogsTable({
  rows,
  org,
  projects,
}: {
  rows: LogSummary[];
  org: boolean;
  projects: ReturnType<typeof useProjects>;
}) {
  const columns = COLUMNS.filter((c) => org || c.name !== 'c-project');
  return html`<div class="table-wrap logs-wrap">
    <table class=${`logs${org ? ' with-project' : ''}`} data-testid="logs-table">
      <caption class="sr-only">Requests, newest first</caption>
      <colgroup>
        ${columns.map(({ name, width }) => html`<col class=${name} style=${width ? { width } : undefined} />`)}
      </colgroup>
      <thead>
        <${HeadRow} columns=${columns.map((c) => c.head)} />
      </thead>
      <tbody>
        ${rows.map((r) => {
          const project = org ? projectName(projects, r.project_id) : '';
          const model = r.model_requested ?? '—';
          const served = servedBy(r);
          return html`<tr>
            <td class="c-time" data-label="Time"><${Time} iso=${r.created_at} stacked /></td>
            <td class="c-request clip" data-label="Request">
              <a href=${`/ui/logs/${encodeURIComponent(r.id)}`} class="mono" title=${r.id}>${r.id}</a>
              <small class="line" title=${r.request_type}>${r.request_type}${r.replay_of ? html` <${Badge} tone="neutral">replay<//>` : null}</small>
            </td>
            ${org ? html`<td class="c-project clip" data-label="Project" title=${project}>${project}</td>` : null}
            <td class="c-model clip" data-label="Model">
              <span class="line" title=${model}>${model}</span>
              ${served ? html`<small class="line" title=${served}>${served}</small>` : null}
            </td>
            <td class="c-status" data-label="Status"><${StatusBadge} code=${r.status_code} /></td>
            <td class="c-latency num" data-label="Latency">${ms(r.latency_ms)}</td>
            <td class="c-tokens num" data-label="Tokens in / out">${int(r.input_tokens)} / ${int(r.output_tokens)}</td>
            <td class="c-cost num" data-label="Cost">${usd(r.cost_usd)}</td>
            <td class="c-cache" data-label="Cache">${r.cache ?? '—'}</td>
            <td class="c-user clip" data-label="End user" title=${r.end_user ?? undefined}>${r.end_user ?? '—'}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

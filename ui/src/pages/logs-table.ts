// The logs list. Status, latency, cost and cache are what a reader scans for, so they must be on
// screen without scrolling sideways: the table has a fixed layout (each column its own width, the
// model column takes the rest and long names end in an ellipsis, whole in their title), and below
// 1200 px each row becomes a block of labelled fields (data-label) that wraps to the width it has.
import { html } from 'htm/preact';
import { Badge, StatusBadge, Time } from '../components/common.ts';
import { int, ms, usd } from '../format.ts';
import { projectName, type useProjects } from '../projects.ts';
import type { LogSummary } from '../types.ts';

/** What ran, in one line: the model served and the vendor it ran on, when they add to the one asked for. */
function servedBy(r: LogSummary): string | null {
  const used = r.model_used && r.model_used !== r.model_requested ? `→ ${r.model_used}` : null;
  const via = r.provider ? `via ${r.provider}` : null;
  return [used, via].filter((x) => x !== null).join(' ') || null;
}

export function LogsTable({
  rows,
  org,
  projects,
}: {
  rows: LogSummary[];
  org: boolean;
  projects: ReturnType<typeof useProjects>;
}) {
  return html`<div class="table-wrap logs-wrap">
    <table class=${`logs${org ? ' with-project' : ''}`} data-testid="logs-table">
      <caption class="sr-only">Requests, newest first</caption>
      <colgroup>
        <col class="c-time" />
        <col class="c-request" />
        ${org ? html`<col class="c-project" />` : null}
        <col class="c-model" />
        <col class="c-status" />
        <col class="c-latency" />
        <col class="c-tokens" />
        <col class="c-cost" />
        <col class="c-cache" />
        <col class="c-user" />
      </colgroup>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Request</th>
          ${org ? html`<th scope="col">Project</th>` : null}
          <th scope="col">Model</th>
          <th scope="col">Status</th>
          <th scope="col" class="num">Latency</th>
          <th scope="col" class="num">Tokens in / out</th>
          <th scope="col" class="num">Cost</th>
          <th scope="col">Cache</th>
          <th scope="col">End user</th>
        </tr>
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

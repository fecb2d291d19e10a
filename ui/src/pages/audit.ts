// The audit log: every management write, newest first, filtered by actor, action and resource;
// each opens to its before and after. Read-only (no API changes an entry); the chain check and
// the NDJSON export are a button away, for an auditor.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, get, type Query } from '../api.ts';
import { Badge, Empty, ErrorBox, JsonView, Time } from '../components/common.ts';
import { PagedList, usePaged } from '../components/paged-list.ts';
import { useAction } from '../hooks.ts';
import type { AuditEntry, AuditVerify } from '../types.ts';

const FILTERS = [
  ['actor_id', 'Actor id', 'key_…'],
  ['action', 'Action', 'routing_config.update'],
  ['resource_type', 'Resource type', 'routing_config'],
  ['resource_id', 'Resource id', 'rc_…'],
] as const;

type FilterName = (typeof FILTERS)[number][0];

function Entry({ e }: { e: AuditEntry }) {
  return html`<div class="audit-detail" data-testid="audit-detail">
    <p class="hint">
      Request <code>${e.request_id ?? '—'}</code> from ${e.ip ?? 'no address'} · ${e.user_agent ?? 'no user agent'}
    </p>
    <h4>Before</h4>
    <${JsonView} value=${e.before} label="Before" />
    <h4>After</h4>
    <${JsonView} value=${e.after} label="After" />
    <p class="hint">Entry #${e.seq} · hash <code class="clip">${e.hash}</code></p>
  </div>`;
}

/** The export streams NDJSON, which the page saves as a file rather than reads. */
async function download(query: Query): Promise<void> {
  const blob = await api<Blob>('GET', '/audit-logs/export', { query, blob: true });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = 'audit-logs.ndjson';
  a.click();
  URL.revokeObjectURL(url);
}

function Verify() {
  const check = useAction(() => get<AuditVerify>('/audit-logs/verify'));
  const r = check.result;
  return html`<div class="form-actions">
    <button type="button" disabled=${check.pending} onClick=${() => check.run()}>Verify the chain</button>
    ${
      r
        ? r.ok
          ? html`<span class="ok-text" role="status">Intact: ${r.checked} entries checked.</span>`
          : html`<span role="status"><${Badge} tone="bad">Broken<//> ${r.first_bad_id ? html`at <code>${r.first_bad_id}</code>` : 'at the end (entries missing)'} after ${r.checked} entries.</span>`
        : null
    }
    <${ErrorBox} error=${check.error} title="The check failed" />
  </div>`;
}

export function AuditPage() {
  const [filters, setFilters] = useState<Record<FilterName, string>>({
    actor_id: '',
    action: '',
    resource_type: '',
    resource_id: '',
  });
  const [open, setOpen] = useState<string | null>(null);
  const query = Object.fromEntries(FILTERS.map(([k]) => [k, filters[k] || undefined]));
  const paged = usePaged<AuditEntry>('/audit-logs', { limit: 50, ...query });
  const exporting = useAction(() => download(query));

  return html`<h1 tabindex="-1">Audit log</h1>
    <p class="hint">Every change made through the API, MCP, this dashboard or the CLI. Entries are chained by hash; none can be changed or deleted.</p>
    <${Verify} />
    <form
      class="toolbar"
      aria-label="Audit filters"
      onSubmit=${(e: Event) => {
        e.preventDefault();
        const d = new FormData(e.currentTarget as HTMLFormElement);
        setFilters(
          Object.fromEntries(FILTERS.map(([k]) => [k, String(d.get(k) ?? '').trim()])) as Record<FilterName, string>,
        );
      }}
    >
      ${FILTERS.map(([k, label, hint]) => html`<label>${label} <input name=${k} value=${filters[k]} placeholder=${hint} /></label>`)}
      <button type="submit">Filter</button>
      <button type="button" onClick=${paged.list.reload}>Refresh</button>
      <button type="button" disabled=${exporting.pending} onClick=${() => exporting.run()}>Export NDJSON</button>
    </form>
    <${ErrorBox} error=${exporting.error} title="The export failed" />
    <${PagedList}
      paged=${paged}
      what="audit entries"
      errorTitle="The audit log failed to load"
      empty=${html`<${Empty} title="No entries match."><p>Entries appear when something is created, changed or deleted.</p><//>`}
      rows=${(rows: AuditEntry[]) => html`<ul class="deliveries" data-testid="audit-entries">
        ${rows.map(
          (e) => html`<li>
            <button type="button" class="row-toggle" aria-expanded=${open === e.id} onClick=${() => setOpen(open === e.id ? null : e.id)}>
              <${Time} iso=${e.at} /> <code>${e.action}</code> ${e.resource.id ? html`<code>${e.resource.id}</code>` : null}
              <span class="hint">by ${e.actor.name ?? e.actor.id} (${e.actor.type})</span>
            </button>
            ${open === e.id ? html`<${Entry} e=${e} />` : null}
          </li>`,
        )}
      </ul>`}
    />`;
}

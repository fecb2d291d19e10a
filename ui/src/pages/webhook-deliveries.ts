// Webhook deliveries, newest first, filtered by endpoint, status and event type; each opens to its
// payload and every attempt (status, duration, error, the start of the answer), and can be replayed.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { enc, post } from '../api.ts';
import { Badge, Empty, ErrorBox, JsonView, Loading, Time } from '../components/common.ts';
import { PagedList, usePaged } from '../components/paged-list.ts';
import { ms } from '../format.ts';
import { useAction, useApi } from '../hooks.ts';
import type { EventType, WebhookDelivery, WebhookDeliveryDetail, WebhookEndpoint } from '../types.ts';

function tone(status: string): 'ok' | 'warn' | 'bad' {
  return status === 'delivered' ? 'ok' : status === 'failed' ? 'bad' : 'warn';
}

function Detail({ id, onReplayed }: { id: string; onReplayed: () => void }) {
  const d = useApi<WebhookDeliveryDetail>(`/webhooks/deliveries/${enc(id)}`);
  const replay = useAction(() => post<WebhookDelivery>(`/webhooks/deliveries/${enc(id)}/replay`));
  if (d.error) return html`<${ErrorBox} error=${d.error} title="The delivery failed to load" />`;
  if (!d.data) return html`<${Loading} what="the delivery" />`;
  const attempts = d.data.attempts;
  return html`<div class="delivery-detail" data-testid="delivery-detail">
    <h4>Attempts</h4>
    ${
      attempts.length === 0
        ? html`<p class="hint">No attempt yet${d.data.next_attempt_at ? html`; the first is due <${Time} iso=${d.data.next_attempt_at} />` : ''}.</p>`
        : html`<div class="table-wrap"><table>
            <thead><tr><th scope="col">#</th><th scope="col">Started</th><th scope="col" class="num">Took</th><th scope="col">Answer</th><th scope="col">Error</th><th scope="col">Body (first 4 KB)</th></tr></thead>
            <tbody>
              ${attempts.map(
                (a) => html`<tr>
                  <td>${a.attempt}</td>
                  <td><${Time} iso=${a.started_at} /></td>
                  <td class="num">${ms(a.duration_ms)}</td>
                  <td>${a.response_status ?? '—'}</td>
                  <td>${a.error ?? '—'}</td>
                  <td><code class="clip">${a.response_body ?? ''}</code></td>
                </tr>`,
              )}
            </tbody>
          </table></div>`
    }
    ${d.data.next_attempt_at && d.data.status === 'pending' ? html`<p class="hint">Next attempt <${Time} iso=${d.data.next_attempt_at} />.</p>` : null}
    <h4>Payload</h4>
    <${JsonView} value=${d.data.payload} label="Payload" />
    <div class="form-actions">
      <button
        type="button"
        disabled=${replay.pending}
        onClick=${async () => {
          if (await replay.run()) {
            d.reload();
            onReplayed();
          }
        }}
      >
        Replay (same body, same webhook-id)
      </button>
      ${replay.result ? html`<span class="ok-text" role="status">Queued: ${replay.result.status}.</span>` : null}
    </div>
    <${ErrorBox} error=${replay.error} title="Replay refused" />
  </div>`;
}

export function Deliveries({
  endpoints,
  types,
  tick,
}: {
  endpoints: WebhookEndpoint[];
  types: EventType[];
  tick: number;
}) {
  const [filters, setFilters] = useState({ endpoint_id: '', status: '', event_type: '' });
  const [open, setOpen] = useState<string | null>(null);
  const paged = usePaged<WebhookDelivery>('/webhooks/deliveries', {
    limit: 25,
    endpoint_id: filters.endpoint_id || undefined,
    status: filters.status || undefined,
    event_type: filters.event_type || undefined,
  });
  const list = paged.list;
  const first = useRef(tick);
  useEffect(() => {
    if (first.current !== tick) list.reload();
  }, [tick]);
  const set = (k: keyof typeof filters) => (e: Event) => {
    setFilters({ ...filters, [k]: (e.target as HTMLSelectElement).value });
  };
  const url = (id: string) => endpoints.find((e) => e.id === id)?.url ?? id;

  return html`<form class="toolbar" aria-label="Delivery filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Endpoint
        <select value=${filters.endpoint_id} onChange=${set('endpoint_id')}>
          <option value="">All</option>
          ${endpoints.map((e) => html`<option value=${e.id}>${e.url}</option>`)}
        </select>
      </label>
      <label>Status
        <select value=${filters.status} onChange=${set('status')}>
          <option value="">Any</option><option value="pending">pending</option><option value="delivered">delivered</option><option value="failed">failed</option>
        </select>
      </label>
      <label>Event
        <select value=${filters.event_type} onChange=${set('event_type')}>
          <option value="">Any</option>
          ${types.map((t) => html`<option value=${t.type}>${t.type}</option>`)}
        </select>
      </label>
      <button type="button" onClick=${list.reload}>Refresh</button>
    </form>
    <${PagedList}
      paged=${paged}
      what="deliveries"
      errorTitle="Deliveries failed to load"
      empty=${html`<${Empty} title="No deliveries match."><p>Send a test event from an endpoint above, or change something (a routing config, a provider) that an endpoint subscribes to.</p><//>`}
      rows=${(rows: WebhookDelivery[]) => html`<ul class="deliveries" data-testid="deliveries">
        ${rows.map(
          (d) => html`<li>
            <button type="button" class="row-toggle" aria-expanded=${open === d.id} onClick=${() => setOpen(open === d.id ? null : d.id)}>
              <${Badge} tone=${tone(d.status)}>${d.status}<//> <strong>${d.event_type}</strong> <span class="mono">${url(d.endpoint_id)}</span>${' '}
              <span>${d.attempt_count} attempt${d.attempt_count === 1 ? '' : 's'}${d.response_status !== null ? `, last answer ${d.response_status}` : ''}</span>${' '}
              <${Time} iso=${d.created_at} />
            </button>
            ${open === d.id ? html`<${Detail} id=${d.id} onReplayed=${list.reload} />` : null}
          </li>`,
        )}
      </ul>`}
    />`;
}

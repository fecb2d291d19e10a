// Webhook endpoints: create (the signing secret is shown once), send a test event, rotate the
// secret, pause or resume, delete; their deliveries with attempt history and replay below.

import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { WriteOnly } from '../access.ts';
import { del, enc, patch, post } from '../api.ts';
import { Badge, ConfirmButton, Empty, ErrorBox, Loading, OnceSecret, Section, Time } from '../components/common.ts';
import { ManagedBadge, UnlessManaged } from '../components/managed.ts';
import { useAction, useApi } from '../hooks.ts';
import { submitForm, textField } from '../lib/form.ts';
import type { EventType, Page, WebhookDelivery, WebhookEndpoint } from '../types.ts';
import { Deliveries } from './webhook-deliveries.ts';

function CreateForm({ types, onCreated }: { types: EventType[]; onCreated: (e: WebhookEndpoint) => void }) {
  const create = useAction((body: Record<string, unknown>) => post<WebhookEndpoint>('/webhooks/endpoints', body));
  const [all, setAll] = useState(true);
  return html`<form
    class="form-grid"
    aria-label="Create a webhook endpoint"
    onSubmit=${submitForm(
      (d) => {
        const description = textField(d, 'description');
        return create.run({
          url: textField(d, 'url'),
          event_types: all ? ['*'] : d.getAll('event_types').map(String),
          ...(description ? { description } : {}),
        });
      },
      (created) => {
        setAll(true);
        onCreated(created);
      },
    )}
  >
    <label class="wide">URL <input name="url" type="url" required placeholder="https://example.com/hooks/switchyard" /></label>
    <label class="wide">Description <input name="description" placeholder="optional" /></label>
    <fieldset class="wide">
      <legend>Events</legend>
      <label class="inline"><input type="checkbox" checked=${all} onChange=${(e: Event) => setAll((e.target as HTMLInputElement).checked)} /> All events (<code>*</code>, including types added later)</label>
      ${
        all
          ? null
          : html`<div class="checks">
              ${types.map((t) => html`<label class="inline" title=${t.description}><input type="checkbox" name="event_types" value=${t.type} /> ${t.type}</label>`)}
            </div>`
      }
    </fieldset>
    <div class="form-actions"><button type="submit" class="primary" disabled=${create.pending}>Create endpoint</button></div>
    <${ErrorBox} error=${create.error} title="The endpoint was not created" />
  </form>`;
}

function EndpointCard({
  ep,
  types,
  onChanged,
  onSecret,
}: {
  ep: WebhookEndpoint;
  types: EventType[];
  onChanged: () => void;
  onSecret: (e: WebhookEndpoint) => void;
}) {
  const [testType, setTestType] = useState('webhook.test');
  const test = useAction(() =>
    post<WebhookDelivery>(`/webhooks/endpoints/${enc(ep.id)}/test`, { event_type: testType }),
  );
  const rotate = useAction(() => post<WebhookEndpoint>(`/webhooks/endpoints/${enc(ep.id)}/rotate-secret`));
  const toggle = useAction(() => patch<WebhookEndpoint>(`/webhooks/endpoints/${enc(ep.id)}`, { active: !ep.active }));
  const remove = useAction(() => del<WebhookEndpoint>(`/webhooks/endpoints/${enc(ep.id)}`));
  return html`<li class="card" data-testid="webhook-endpoint">
    <div class="card-head">
      <h3><span class="mono">${ep.url}</span><${ManagedBadge} item=${ep} /></h3>
      <${Badge} tone=${ep.active ? 'ok' : 'warn'}>${ep.active ? 'active' : 'paused'}<//>
    </div>
    ${ep.description ? html`<p>${ep.description}</p>` : null}
    <p class="hint">
      Events: ${ep.event_types.join(', ')} · created <${Time} iso=${ep.created_at} />
      ${ep.failing_since ? html` · failing since <${Time} iso=${ep.failing_since} />` : null}
      ${ep.previous_secret_expires_at ? html` · previous secret valid until <${Time} iso=${ep.previous_secret_expires_at} />` : null}
    </p>
    ${ep.disabled_reason ? html`<p class="notice">Disabled: ${ep.disabled_reason}</p>` : null}
    <form
      class="inline-form"
      aria-label=${`Send a test event to ${ep.url}`}
      onSubmit=${async (e: Event) => {
        e.preventDefault();
        if (await test.run()) onChanged();
      }}
    >
      <label>Test event
        <select value=${testType} onChange=${(e: Event) => setTestType((e.target as HTMLSelectElement).value)}>
          <option value="webhook.test">webhook.test</option>
          ${types.filter((t) => t.type !== 'webhook.test').map((t) => html`<option value=${t.type}>${t.type} (example)</option>`)}
        </select>
      </label>
      <button type="submit" disabled=${test.pending}>${test.pending ? 'Sending… (up to 12 s)' : 'Send test'}</button>
    </form>
    ${
      test.result
        ? html`<p role="status" class=${test.result.status === 'delivered' ? 'ok-text' : 'notice'}>
            Test delivery ${test.result.id}: ${test.result.status}${test.result.response_status !== null ? `, the endpoint answered ${test.result.response_status}` : ''}${test.result.last_error ? ` (${test.result.last_error})` : ''}.
          </p>`
        : null
    }
    <div class="form-actions">
      <${UnlessManaged} item=${ep}>
        <button type="button" disabled=${toggle.pending} onClick=${async () => (await toggle.run()) && onChanged()}>${ep.active ? 'Pause' : 'Resume'}</button>
      <//>
      <${ConfirmButton}
        label="Rotate secret"
        confirm="Rotate the signing secret? The old one stays valid for 24 hours."
        onConfirm=${async () => {
          const r = await rotate.run();
          if (r) onSecret(r);
        }}
      />
      <${UnlessManaged} item=${ep}>
        <${ConfirmButton} label="Delete" confirm=${`Delete the endpoint ${ep.url}?`} onConfirm=${async () => (await remove.run()) && onChanged()} />
      <//>
    </div>
    <${ErrorBox} error=${test.error ?? rotate.error ?? toggle.error ?? remove.error} title="The endpoint action failed" />
  </li>`;
}

export function WebhooksPage() {
  const endpoints = useApi<Page<WebhookEndpoint>>('/webhooks/endpoints', { limit: 200 });
  const types = useApi<{ data: EventType[] }>('/webhooks/event-types');
  const [secret, setSecret] = useState<WebhookEndpoint | null>(null);
  const [deliveryTick, setDeliveryTick] = useState(0);
  const changed = () => {
    endpoints.reload();
    setDeliveryTick((t) => t + 1);
  };
  const list = endpoints.data?.data ?? [];
  return html`<h1 tabindex="-1">Webhooks</h1>
    <${WriteOnly}><${Section} title="Create an endpoint" id="create-webhook">
      <${ErrorBox} error=${types.error} title="Event types failed to load" />
      <${CreateForm}
        types=${types.data?.data ?? []}
        onCreated=${(e: WebhookEndpoint) => {
          setSecret(e);
          endpoints.reload();
        }}
      />
      ${secret?.signing_secret ? html`<${OnceSecret} title=${`Signing secret of ${secret.url}:`} value=${secret.signing_secret} onDone=${() => setSecret(null)} />` : null}
    <//><//>
    <${Section} title="Endpoints" id="endpoints">
      <${ErrorBox} error=${endpoints.error} title="Endpoints failed to load" />
      ${endpoints.loading && !endpoints.data ? html`<${Loading} what="endpoints" />` : null}
      ${
        endpoints.data && list.length === 0
          ? html`<${Empty} title="No webhook endpoints yet."><p>Create one above to be told about config changes, budget thresholds, provider health and more; send it a test event to check the receiver.</p><//>`
          : null
      }
      ${list.length > 0 ? html`<ul class="cards">${list.map((ep) => html`<${EndpointCard} key=${ep.id} ep=${ep} types=${types.data?.data ?? []} onChanged=${changed} onSecret=${setSecret} />`)}</ul>` : null}
    <//>
    <${Section} title="Deliveries" id="deliveries">
      <${Deliveries} endpoints=${list} types=${types.data?.data ?? []} tick=${deliveryTick} />
    <//>`;
}

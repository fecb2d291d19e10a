// Provider credentials: add one (the key is checked with the vendor first), rotate its key, see its
// health windows, delete it. Keys are write-only: the API never returns them, nor does this page.

import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { WriteOnly } from '../access.ts';
import { type ApiError, del, enc, patch, post } from '../api.ts';
import { Badge, ConfirmButton, Empty, ErrorBox, Loading, Section, Time } from '../components/common.ts';
import { HealthChart } from '../components/health-chart.ts';
import { ManagedBadge, UnlessManaged } from '../components/managed.ts';
import { ms } from '../format.ts';
import { useAction, useApi } from '../hooks.ts';
import { submitForm, textField } from '../lib/form.ts';
import type { HealthWindow, Page, Provider } from '../types.ts';

const VENDORS = ['openai', 'anthropic', 'google', 'azure-openai', 'bedrock', 'together', 'fireworks'];

function healthTone(state: string): 'ok' | 'warn' | 'bad' | 'neutral' {
  return state === 'healthy' ? 'ok' : state === 'degraded' ? 'warn' : state === 'unhealthy' ? 'bad' : 'neutral';
}

function AddForm({ onAdded }: { onAdded: () => void }) {
  const add = useAction((body: Record<string, unknown>) => post<Provider>('/providers', body));
  const [vendor, setVendor] = useState('openai');
  const submit = submitForm((d) => {
    const text = (k: string) => textField(d, k);
    const body: Record<string, unknown> = { vendor, api_key: text('api_key'), verify: d.get('verify') === 'on' };
    if (text('name')) body.name = text('name');
    if (text('base_url')) body.base_url = text('base_url');
    if (text('weight')) body.weight = Number(text('weight'));
    return add.run(body);
  }, onAdded);
  return html`<form class="form-grid" aria-label="Add a provider credential" onSubmit=${submit}>
    <label>Vendor
      <select name="vendor" value=${vendor} onChange=${(e: Event) => setVendor((e.target as HTMLSelectElement).value)}>
        ${VENDORS.map((v) => html`<option value=${v}>${v}</option>`)}
      </select>
    </label>
    <label>Name <input name="name" placeholder="main" /></label>
    <label>API key <input name="api_key" type="password" autocomplete="off" required placeholder=${vendor === 'bedrock' ? 'ACCESS_KEY_ID::SECRET::REGION' : 'sk-...'} /></label>
    <label>Base URL${vendor === 'azure-openai' ? ' (required)' : ' (optional)'}
      <input name="base_url" type="url" required=${vendor === 'azure-openai'} placeholder=${vendor === 'azure-openai' ? 'https://<resource>.openai.azure.com' : "the vendor's default"} />
    </label>
    <label>Weight <input name="weight" type="number" min="0" step="1" placeholder="1" /></label>
    <label class="inline"><input type="checkbox" name="verify" checked /> Check the key with the vendor first</label>
    <div class="form-actions">
      <button type="submit" class="primary" disabled=${add.pending}>${add.pending ? 'Checking…' : 'Add provider'}</button>
    </div>
    <${ErrorBox} error=${add.error} title="The provider was not added" />
  </form>`;
}

function Rotate({ provider, onDone }: { provider: Provider; onDone: () => void }) {
  const rotate = useAction((apiKey: string) => patch<Provider>(`/providers/${enc(provider.id)}`, { api_key: apiKey }));
  const [done, setDone] = useState(false);
  return html`<form
    class="inline-form"
    aria-label=${`Rotate the key of ${provider.name}`}
    onSubmit=${async (e: Event) => {
      e.preventDefault();
      const input = (e.currentTarget as HTMLFormElement).elements.namedItem('api_key') as HTMLInputElement;
      if (await rotate.run(input.value.trim())) {
        input.value = '';
        setDone(true);
        onDone();
      }
    }}
  >
    <label>New key for ${provider.name} <input name="api_key" type="password" autocomplete="off" required /></label>
    <button type="submit" disabled=${rotate.pending}>${rotate.pending ? 'Checking…' : 'Rotate key'}</button>
    ${done ? html`<span class="ok-text" role="status">Rotated: the new key was checked and stored.</span>` : null}
    <${ErrorBox} error=${rotate.error} title="Rotation refused; the old key stays" />
  </form>`;
}

function Health({ provider }: { provider: Provider }) {
  const health = useApi<{ windows: HealthWindow[] }>(`/providers/${enc(provider.id)}/health`);
  if (health.error) return html`<${ErrorBox} error=${health.error} title="Health failed to load" />`;
  if (!health.data) return html`<${Loading} what="health" />`;
  return html`<${HealthChart} windows=${health.data.windows} name=${provider.name} />`;
}

function Row({ p, onChanged }: { p: Provider; onChanged: () => void }) {
  const [open, setOpen] = useState<'health' | 'rotate' | null>(null);
  const remove = useAction((force: boolean) =>
    del<unknown>(`/providers/${enc(p.id)}`, force ? { force: true } : undefined),
  );
  const needed = (remove.error as ApiError | undefined)?.code === 'provider_needed';
  return html`<li class="card provider" data-testid="provider">
    <div class="card-head">
      <h3>${p.name} <small>${p.vendor}</small><${ManagedBadge} item=${p} /></h3>
      <${Badge} tone=${healthTone(p.health.state)}>${p.health.state}<//>
    </div>
    <dl class="kv kv-grid">
      <dt>Base URL</dt><dd>${p.base_url ?? "vendor's default"}</dd>
      <dt>Weight</dt><dd>${p.weight}${p.weight === 0 ? ' (standby)' : ''}</dd>
      <dt>p50 latency</dt><dd>${ms(p.health.p50_latency_ms)}</dd>
      <dt>Cooling down until</dt><dd>${p.health.cooldown_until ? html`<${Time} iso=${p.health.cooldown_until} />` : '—'}</dd>
      <dt>Added</dt><dd><${Time} iso=${p.created_at} /></dd>
    </dl>
    <div class="form-actions">
      <button type="button" aria-expanded=${open === 'health'} onClick=${() => setOpen(open === 'health' ? null : 'health')}>Health windows</button>
      <${UnlessManaged} item=${p}>
        <button type="button" aria-expanded=${open === 'rotate'} onClick=${() => setOpen(open === 'rotate' ? null : 'rotate')}>Rotate key</button>
        <${ConfirmButton} label="Delete" confirm=${`Delete ${p.name}?`} onConfirm=${async () => (await remove.run(false)) && onChanged()} />
      <//>
    </div>
    ${open === 'health' ? html`<${Health} provider=${p} />` : null}
    ${open === 'rotate' ? html`<${Rotate} provider=${p} onDone=${onChanged} />` : null}
    <${ErrorBox} error=${remove.error} title="Delete refused" />
    ${needed ? html`<${ConfirmButton} label="Delete anyway" confirm="Configs that need this vendor will fail. Delete anyway?" onConfirm=${async () => (await remove.run(true)) && onChanged()} />` : null}
  </li>`;
}

export function ProvidersPage() {
  const list = useApi<Page<Provider>>('/providers', { limit: 200 });
  return html`<h1 tabindex="-1">Providers</h1>
    <${WriteOnly}><${Section} title="Add a provider credential" id="add-provider"><${AddForm} onAdded=${list.reload} /><//><//>
    <${ErrorBox} error=${list.error} title="Providers failed to load" />
    ${list.loading && !list.data ? html`<${Loading} what="providers" />` : null}
    ${
      list.data && list.data.data.length === 0
        ? html`<${Empty} title="No provider credentials yet.">
            <p>Add one above: calls to that vendor's models then use it. Without one, callers must send <code>X-Svc-Provider-Key</code>.</p>
          <//>`
        : null
    }
    ${list.data && list.data.data.length > 0 ? html`<ul class="cards">${list.data.data.map((p) => html`<${Row} key=${p.id} p=${p} onChanged=${list.reload} />`)}</ul>` : null}
    ${list.data?.has_more ? html`<p class="hint">Showing the first 200 credentials.</p>` : null}`;
}

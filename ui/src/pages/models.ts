// The model catalog: what the organization can call, what it costs (its own rates where it set
// them), what each model can do, and which credentials and configs serve it; plus the org's model
// aliases and price overrides.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { WriteOnly } from '../access.ts';
import { del, enc, post } from '../api.ts';
import type { operations } from '../api-types.ts';
import { Badge, ConfirmButton, Empty, ErrorBox, Loading, Section } from '../components/common.ts';
import { ManagedBadge, UnlessManaged } from '../components/managed.ts';
import { int } from '../format.ts';
import { useAction, useApi } from '../hooks.ts';
import { submitForm, textField } from '../lib/form.ts';

type Ok<Op extends keyof operations> = operations[Op]['responses'] extends {
  200: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;
type ModelList = Ok<'list_models'>;
type Model = ModelList['data'][number];
type AliasList = Ok<'list_model_aliases'>;
type PriceList = Ok<'list_model_prices'>;

const KINDS = ['chat', 'embeddings', 'images', 'audio'];
const CAPABILITIES = ['tools', 'vision', 'json_schema', 'thinking', 'prompt_cache', 'dimensions'];

function per1m(n: number | null): string {
  return n === null ? '—' : `$${n}`;
}

function Select({
  name,
  value,
  options,
  onChange,
}: {
  name: string;
  value: string;
  options: string[];
  onChange: (v: string) => void;
}) {
  return html`<label>${name}
    <select value=${value} onChange=${(e: Event) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">any</option>
      ${options.map((o) => html`<option value=${o}>${o}</option>`)}
    </select>
  </label>`;
}

function ModelRow({ m }: { m: Model }) {
  const caps = Object.entries(m.capabilities)
    .filter(([, on]) => on)
    .map(([c]) => c);
  return html`<tr>
    <td class="mono">${m.id}${m.aliases.map((a) => html` <${Badge} tone="neutral">${a}<//>`)}</td>
    <td>${m.kind}</td>
    <td class="num">${int(m.context_window)}</td>
    <td class="num">${int(m.max_output_tokens)}</td>
    <td class="num">${per1m(m.prices.input)} / ${per1m(m.prices.output)}${m.prices.overridden ? html` <${Badge} tone="ok">own rate<//>` : null}</td>
    <td>${caps.join(', ') || '—'}</td>
    <td>${m.credentials.map((c) => c.name).join(', ')}</td>
    <td class="mono">${m.configs.join(' ')}</td>
  </tr>`;
}

function Aliases() {
  const list = useApi<AliasList>('/model-aliases');
  const save = useAction((body: { name: string; model: string }) => post('/model-aliases', body));
  const remove = useAction((name: string) => del(`/model-aliases/${enc(name)}`));
  return html`<${Section} title="Aliases" id="aliases">
    ${list.error ? html`<${ErrorBox} error=${list.error} title="Aliases failed to load" />` : null}
    <ul data-testid="model-aliases">
      ${(list.data?.data ?? []).map(
        (
          a,
        ) => html`<li><span class="mono">${a.name}</span> → <span class="mono">${a.model}</span><${ManagedBadge} item=${a} />
          <${WriteOnly}><${UnlessManaged} item=${a}><${ConfirmButton} label="Delete" confirm=${`Delete alias ${a.name}?`} onConfirm=${async () => (await remove.run(a.name)) && list.reload()} /><//><//></li>`,
      )}
    </ul>
    <${WriteOnly}><form class="form-grid" aria-label="Set an alias" onSubmit=${submitForm(
      (d) => save.run({ name: textField(d, 'name'), model: textField(d, 'model') }),
      () => list.reload(),
    )}>
      <label>Name <input name="name" required placeholder="fast" /></label>
      <label>Stands for <input name="model" required placeholder="@main or openai/gpt-4o-mini" /></label>
      <div class="form-actions"><button type="submit" disabled=${save.pending}>Set alias</button></div>
      <${ErrorBox} error=${save.error ?? remove.error} title="The alias was not saved" />
    </form><//>
  <//>`;
}

function Prices() {
  const list = useApi<PriceList>('/model-prices');
  const save = useAction((body: { model: string; input: number; output: number }) => post('/model-prices', body));
  const remove = useAction((model: string) => del(`/model-prices/${enc(model)}`));
  return html`<${Section} title="Price overrides" id="prices">
    ${list.error ? html`<${ErrorBox} error=${list.error} title="Price overrides failed to load" />` : null}
    <ul data-testid="model-prices">
      ${(list.data?.data ?? []).map(
        (
          p,
        ) => html`<li><span class="mono">${p.model}</span>: $${p.input} in, $${p.output} out per 1M tokens<${ManagedBadge} item=${p} />
          <${WriteOnly}><${UnlessManaged} item=${p}><${ConfirmButton} label="Delete" confirm=${`Back to list prices for ${p.model}?`} onConfirm=${async () => (await remove.run(p.model)) && list.reload()} /><//><//></li>`,
      )}
    </ul>
    <${WriteOnly}><form class="form-grid" aria-label="Set a price" onSubmit=${submitForm(
      (d) => save.run({ model: textField(d, 'model'), input: Number(d.get('input')), output: Number(d.get('output')) }),
      () => list.reload(),
    )}>
      <label>Model <input name="model" required placeholder="openai/gpt-4o-mini" /></label>
      <label>Input $/1M <input name="input" type="number" step="any" min="0" required /></label>
      <label>Output $/1M <input name="output" type="number" step="any" min="0" required /></label>
      <div class="form-actions"><button type="submit" disabled=${save.pending}>Set price</button></div>
      <${ErrorBox} error=${save.error ?? remove.error} title="The price was not saved" />
    </form><//>
  <//>`;
}

export function ModelsPage() {
  const [vendor, setVendor] = useState('');
  const [kind, setKind] = useState('');
  const [capability, setCapability] = useState('');
  const models = useApi<ModelList>('/models', {
    vendor: vendor || undefined,
    kind: kind || undefined,
    capability: capability || undefined,
  });
  const vendors = [...new Set((models.data?.data ?? []).map((m) => m.vendor))];
  return html`<h1 tabindex="-1">Models</h1>
    <${Section} title="Catalog" id="catalog">
      <div class="form-grid" role="group" aria-label="Filters">
        <${Select} name="Vendor" value=${vendor} options=${vendor ? [vendor, ...vendors.filter((v) => v !== vendor)] : vendors} onChange=${setVendor} />
        <${Select} name="Kind" value=${kind} options=${KINDS} onChange=${setKind} />
        <${Select} name="Capability" value=${capability} options=${CAPABILITIES} onChange=${setCapability} />
      </div>
      ${models.error ? html`<${ErrorBox} error=${models.error} title="Models failed to load" />` : null}
      ${!models.data && !models.error ? html`<${Loading} what="models" />` : null}
      ${models.data && models.data.data.length === 0 ? html`<${Empty} title="No models."><p>Add a provider credential: its vendor's models appear here.</p><//>` : null}
      ${
        models.data && models.data.data.length > 0
          ? html`<div class="table-wrap"><table data-testid="models-table">
            <thead><tr>
              <th scope="col">Model</th><th scope="col">Kind</th><th scope="col" class="num">Context</th><th scope="col" class="num">Max output</th>
              <th scope="col" class="num">In / out per 1M</th><th scope="col">Capabilities</th><th scope="col">Credentials</th><th scope="col">Configs</th>
            </tr></thead>
            <tbody>${models.data.data.map((m) => html`<${ModelRow} m=${m} />`)}</tbody>
          </table></div>`
          : null
      }
    <//>
    <div class="grid-2"><${Aliases} /><${Prices} /></div>`;
}

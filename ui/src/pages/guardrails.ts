// Guardrail policies: each one's scope, mode and checks; create (the webhook signing secret is shown
// once), edit (name, mode, scope and the checks as JSON), delete. The server validates the checks and
// its 400 names the field, which the form shows as it came.

import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { WriteOnly } from '../access.ts';
import { del, enc, patch, post } from '../api.ts';
import { Badge, ConfirmButton, Empty, ErrorBox, Loading, OnceSecret, Section, Time } from '../components/common.ts';
import { ManagedBadge, UnlessManaged } from '../components/managed.ts';
import { useAction, useApi } from '../hooks.ts';
import { projectName, useProjects } from '../projects.ts';
import type { Guardrail, GuardrailCheck, Page, Project } from '../types.ts';

const EXAMPLE_CHECKS = `[
  { "type": "pii", "stage": "both", "action": "mask", "entities": ["email", "credit_card"], "restore": true },
  { "type": "keywords", "stage": "input", "action": "block", "words": ["project zeus"] }
]`;

const SCOPE_TYPES = ['org', 'project', 'api_key', 'routing_config'] as const;
/** The checks editor needs the form's whole width; `.wide` spans two columns only. */
const FULL_ROW = { gridColumn: '1 / -1' };

function scopeText(g: Guardrail, projects: Project[]): string {
  const { type, id } = g.scope;
  if (type === 'org') return 'every call of the organization';
  if (type === 'project') return `calls of project ${projectName(projects, id)}`;
  return `calls ${type === 'api_key' ? 'made with API key' : 'through routing config'} ${id ?? '?'}`;
}

function checkText(c: GuardrailCheck): string {
  const what =
    c.type === 'pii'
      ? `pii: ${(c.entities ?? []).join(', ')}${c.restore ? ' (restored in the answer)' : ''}`
      : c.type === 'regex'
        ? `regex: ${(c.patterns ?? []).map((p) => `/${p}/${c.flags ?? ''}`).join(' ')}`
        : c.type === 'keywords'
          ? `keywords: ${(c.words ?? []).join(', ')}`
          : c.type === 'webhook'
            ? `webhook: ${c.url ?? ''} (${c.timeout_ms ?? 500} ms, on error ${c.on_error ?? 'allow'})`
            : `${c.type}: ${c.limit ?? ''}`;
  return `${c.action} on ${c.stage === 'both' ? 'input and output' : c.stage} · ${what}`;
}

interface FormValues {
  name: string;
  mode: string;
  scopeType: string;
  scopeId: string;
  checks: string;
}

/** The body of a create or update; the checks text is sent as parsed, or the parse error is shown. */
function bodyOf(v: FormValues): Record<string, unknown> {
  let checks: unknown;
  try {
    checks = JSON.parse(v.checks);
  } catch (err) {
    throw new Error(`Checks are not valid JSON: ${(err as Error).message}`);
  }
  const scope = v.scopeType === 'org' ? { type: 'org' } : { type: v.scopeType, id: v.scopeId.trim() };
  return { name: v.name.trim(), mode: v.mode, scope, checks };
}

function PolicyForm({
  label,
  submit,
  initial,
  projects,
  onSaved,
}: {
  label: string;
  submit: (body: Record<string, unknown>) => Promise<Guardrail>;
  initial: FormValues;
  projects: Project[];
  onSaved: (g: Guardrail) => void;
}) {
  const save = useAction(async (v: FormValues) => submit(bodyOf(v)));
  const [scopeType, setScopeType] = useState(initial.scopeType);
  // Fields are uncontrolled with defaultValue: the re-render a scope change causes keeps what was typed.
  return html`<form
    class="form-grid"
    aria-label=${label}
    onSubmit=${async (e: Event) => {
      e.preventDefault();
      const d = new FormData(e.currentTarget as HTMLFormElement);
      const saved = await save.run({
        name: String(d.get('name') ?? ''),
        mode: String(d.get('mode') ?? 'enforce'),
        scopeType,
        scopeId: String(d.get('scope_id') ?? ''),
        checks: String(d.get('checks') ?? ''),
      });
      if (saved) onSaved(saved);
    }}
  >
    <label>Name <input name="name" required maxLength=${200} defaultValue=${initial.name} /></label>
    <label>Mode
      <select name="mode">
        <option value="enforce" selected=${initial.mode === 'enforce'}>enforce (verdicts change calls)</option>
        <option value="shadow" selected=${initial.mode === 'shadow'}>shadow (verdicts are only recorded)</option>
      </select>
    </label>
    <label>Scope
      <select name="scope_type" value=${scopeType} onChange=${(e: Event) => setScopeType((e.target as HTMLSelectElement).value)}>
        ${SCOPE_TYPES.map((t) => html`<option value=${t}>${t.replace('_', ' ')}</option>`)}
      </select>
    </label>
    ${
      scopeType === 'project'
        ? html`<label>Project
            <select name="scope_id" required>
              ${projects.map((p) => html`<option value=${p.id} selected=${p.id === initial.scopeId}>${p.name}</option>`)}
            </select>
          </label>`
        : scopeType === 'org'
          ? null
          : html`<label>${scopeType === 'api_key' ? 'API key id' : 'Routing config id'} <input name="scope_id" required defaultValue=${initial.scopeId} placeholder=${scopeType === 'api_key' ? 'key_…' : 'rc_…'} /></label>`
    }
    <label style=${FULL_ROW}>Checks (JSON, run in this order)
      <textarea name="checks" class="code" rows="8" spellcheck="false" required defaultValue=${initial.checks}></textarea>
    </label>
    <p class="hint" style=${FULL_ROW}>Check types: pii, regex, keywords, max_input_tokens, max_messages, webhook; each with a stage (input, output, both) and an action (block, mask, flag). See the README's Guardrails section.</p>
    <div class="form-actions"><button type="submit" class="primary" disabled=${save.pending}>${label}</button></div>
    <${ErrorBox} error=${save.error} title="The policy was not saved" />
  </form>`;
}

function PolicyCard({ g, projects, onChanged }: { g: Guardrail; projects: Project[]; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const remove = useAction(() => del<Guardrail>(`/guardrails/${enc(g.id)}`));
  return html`<li class="card" data-testid="guardrail" id=${`guardrail-${g.id}`}>
    <div class="card-head">
      <h3>${g.name}<${ManagedBadge} item=${g} /></h3>
      <${Badge} tone=${g.mode === 'enforce' ? 'ok' : 'neutral'}>${g.mode}<//>
    </div>
    <p class="hint">Applies to ${scopeText(g, projects)} · created <${Time} iso=${g.created_at} /> · <span class="mono">${g.id}</span></p>
    <ol class="checks-list">${g.checks.map((c) => html`<li>${checkText(c)}</li>`)}</ol>
    <${WriteOnly}><div class="form-actions"><${UnlessManaged} item=${g}>
      <button type="button" aria-expanded=${editing} onClick=${() => setEditing(!editing)}>Edit</button>
      <${ConfirmButton} label="Delete" confirm=${`Delete ${g.name}? Calls stop being checked by it at once.`} onConfirm=${async () => (await remove.run()) && onChanged()} />
    <//></div><//>
    <${ErrorBox} error=${remove.error} title="Delete failed" />
    ${
      editing
        ? html`<${PolicyForm}
            label=${`Save ${g.name}`}
            submit=${(body: Record<string, unknown>) => patch<Guardrail>(`/guardrails/${enc(g.id)}`, body)}
            initial=${{ name: g.name, mode: g.mode, scopeType: g.scope.type, scopeId: g.scope.id ?? '', checks: JSON.stringify(g.checks, null, 2) }}
            projects=${projects}
            onSaved=${() => {
              setEditing(false);
              onChanged();
            }}
          />`
        : null
    }
  </li>`;
}

export function GuardrailsPage() {
  const projects = useProjects(true);
  const list = useApi<Page<Guardrail>>('/guardrails', { limit: 200 });
  const [secret, setSecret] = useState<Guardrail | null>(null);
  const [formKey, setFormKey] = useState(0);
  const policies = list.data?.data ?? [];
  return html`<h1 tabindex="-1">Guardrails</h1>
    <${ErrorBox} error=${list.error} title="Guardrail policies failed to load" />
    ${list.loading && !list.data ? html`<${Loading} what="guardrail policies" />` : null}
    ${
      list.data && policies.length === 0
        ? html`<${Empty} title="No guardrail policies yet."><p>Create one below to mask PII before it reaches a model, block prompts that match a pattern, or ask your own hook.</p><//>`
        : null
    }
    ${policies.length > 0 ? html`<ul class="cards">${policies.map((g) => html`<${PolicyCard} key=${g.id} g=${g} projects=${projects} onChanged=${list.reload} />`)}</ul>` : null}
    <${WriteOnly}><${Section} title="Create a policy" id="create-guardrail">
      <${PolicyForm}
        key=${formKey}
        label="Create policy"
        submit=${(body: Record<string, unknown>) => post<Guardrail>('/guardrails', body)}
        initial=${{ name: '', mode: 'enforce', scopeType: 'org', scopeId: '', checks: EXAMPLE_CHECKS }}
        projects=${projects}
        onSaved=${(g: Guardrail) => {
          if (g.checks.some((c) => c.type === 'webhook')) setSecret(g);
          setFormKey((k) => k + 1);
          list.reload();
        }}
      />
      ${secret?.signing_secret ? html`<${OnceSecret} title=${`Signing secret of the webhook checks of ${secret.name}:`} value=${secret.signing_secret} onDone=${() => setSecret(null)} />` : null}
    <//><//>`;
}

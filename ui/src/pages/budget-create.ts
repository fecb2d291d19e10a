// The form that creates a budget. Scope selectors depend on the scope type: a project picker, an
// id (API key, end user) or a tag `key=value`; left empty, each member gets its own counter.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ErrorBox } from '../components/common.ts';
import type { Action } from '../hooks.ts';
import { submitForm, textField } from '../lib/form.ts';
import type { Budget, Project } from '../types.ts';

function list(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

export function BudgetCreate({
  projects,
  action,
  onCreated,
}: {
  projects: Project[];
  action: Action<[Record<string, unknown>], Budget>;
  onCreated: () => void;
}) {
  const [scopeType, setScopeType] = useState('org');
  const submit = submitForm(
    (d) => {
      const text = (k: string) => textField(d, k);
      const scope: Record<string, string> = { type: scopeType };
      if (scopeType === 'tag' && text('scope_value')) scope.value = text('scope_value');
      else if (scopeType !== 'org' && text('scope_id')) scope.id = text('scope_id');
      const body: Record<string, unknown> = {
        name: text('name'),
        scope,
        period: text('period'),
        limit_usd: Number(text('limit_usd')),
        action: text('action'),
      };
      const thresholds = list(text('thresholds')).map((t) =>
        t.endsWith('%') ? Number(t.slice(0, -1)) / 100 : Number(t),
      );
      if (thresholds.length > 0) body.thresholds = thresholds;
      const models = list(text('models'));
      if (models.length > 0) body.models = models;
      return action.run(body);
    },
    () => {
      setScopeType('org');
      onCreated();
    },
  );
  return html`<form class="form-grid" aria-label="Create a budget" onSubmit=${submit}>
    <label>Name <input name="name" required placeholder="monthly cap" /></label>
    <label>Scope
      <select name="scope_type" value=${scopeType} onChange=${(e: Event) => setScopeType((e.target as HTMLSelectElement).value)}>
        <option value="org">Organization</option>
        <option value="project">Project</option>
        <option value="api_key">API key</option>
        <option value="end_user">End user</option>
        <option value="tag">Tag</option>
      </select>
    </label>
    ${
      scopeType === 'project'
        ? html`<label>Project
            <select name="scope_id">
              <option value="">Each project separately</option>
              ${projects.filter((p) => !p.deleted_at).map((p) => html`<option value=${p.id}>${p.name}</option>`)}
            </select>
          </label>`
        : scopeType === 'tag'
          ? html`<label>Tag (key=value) <input name="scope_value" placeholder="team=search (empty: each tag set)" /></label>`
          : scopeType !== 'org'
            ? html`<label>${scopeType === 'api_key' ? 'Key id' : 'End user'} <input name="scope_id" placeholder="empty: each one separately" /></label>`
            : null
    }
    <label>Period
      <select name="period">
        <option value="daily">Daily (UTC)</option>
        <option value="weekly">Weekly (from Monday)</option>
        <option value="monthly" selected>Monthly</option>
        <option value="total">Total (never resets)</option>
      </select>
    </label>
    <label>Limit (USD) <input name="limit_usd" type="number" min="0" step="any" required placeholder="100" /></label>
    <label>Thresholds <input name="thresholds" placeholder="0.5, 0.8, 1.0 (default)" /></label>
    <label>Action
      <select name="action">
        <option value="block">Block calls that do not fit (402)</option>
        <option value="alert_only">Alert only</option>
      </select>
    </label>
    <label class="wide">Models (glob patterns, comma-separated) <input name="models" placeholder="every model (default); e.g. gpt-4o*, @support*" /></label>
    <div class="form-actions"><button type="submit" class="primary" disabled=${action.pending}>Create budget</button></div>
    <${ErrorBox} error=${action.error} title="The budget was not created" />
  </form>`;
}

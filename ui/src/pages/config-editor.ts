// One routing config: its definition in a JSON editor (checked against the schema openapi.yaml
// publishes, and the server's 400s shown at the field they name), its version history with diffs
// and restore, and a dry-run playground. /ui/configs/new creates one. A read-only caller (viewer)
// sees the definition and its history, without the editor, the restore and delete buttons or the
// playground (whose calls need the developer role).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { mayWriteNow, WriteOnly } from '../access.ts';
import { ApiError, del, enc, patch, post } from '../api.ts';
import { ConfirmButton, ErrorBox, Loading, Section } from '../components/common.ts';
import { check, JsonEditor, type Problem, serverProblem } from '../components/json-editor.ts';
import { isManaged, ManagedBadge, UnlessManaged } from '../components/managed.ts';
import { useAction, useApi } from '../hooks.ts';
import { TEMPLATES, templateText } from '../lib/config-templates.ts';
import type { PageProps } from '../page.ts';
import { navigate } from '../router.ts';
import type { RoutingConfig } from '../types.ts';
import { Playground } from './config-playground.ts';
import { Versions } from './config-versions.ts';

/** The fields a person edits, in the order they read best. */
export function editableText(c: RoutingConfig): string {
  const doc: Record<string, unknown> = { name: c.name, slug: c.slug, strategy: c.strategy };
  if (c.project_id !== null) doc.project_id = c.project_id;
  if (c.embedding_dimensions !== null) doc.embedding_dimensions = c.embedding_dimensions;
  doc.config = c.config;
  return JSON.stringify(doc, null, 2);
}

function Editor({ existing, onSaved }: { existing: RoutingConfig | null; onSaved: (c: RoutingConfig) => void }) {
  const schema = existing ? __CONFIG_SCHEMAS__.update : __CONFIG_SCHEMAS__.create;
  const [text, setText] = useState(() => (existing ? editableText(existing) : templateText('fallback')));
  const [serverProblems, setServerProblems] = useState<Problem[]>([]);
  const [saved, setSaved] = useState<string | null>(null);
  const checked = check(text, schema);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const onSave = async (e: Event) => {
    e.preventDefault();
    setSaved(null);
    setServerProblems([]);
    setError(null);
    setPending(true);
    try {
      const body = checked.parsed?.value;
      const result = existing
        ? await patch<RoutingConfig>(`/routing-configs/${enc(existing.id)}`, body)
        : await post<RoutingConfig>('/routing-configs', body);
      setSaved(existing ? `Saved as version ${result.version}.` : 'Created.');
      onSaved(result);
    } catch (err) {
      // A 400 names the field: it is listed at that field's line; anything else shows as an error.
      if (err instanceof ApiError && err.status === 400)
        setServerProblems([serverProblem(text, err.message, err.param)]);
      else setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
    } finally {
      setPending(false);
    }
  };

  return html`<form onSubmit=${onSave} aria-label="Routing config definition">
    ${
      existing
        ? null
        : html`<label>Start from a template
            <select
              name="template"
              onChange=${(e: Event) => {
                setText(templateText((e.target as HTMLSelectElement).value));
                setServerProblems([]);
              }}
            >
              ${Object.keys(TEMPLATES).map((s) => html`<option value=${s} selected=${s === 'fallback'}>${s}</option>`)}
            </select>
          </label>`
    }
    <${JsonEditor}
      id="config-json"
      label=${existing ? 'Definition (saving writes a new version)' : 'Definition'}
      value=${text}
      onChange=${(t: string) => {
        setText(t);
        setServerProblems([]);
        setSaved(null);
      }}
      schema=${schema}
      extra=${serverProblems}
    />
    <${ErrorBox} error=${error} title="Saving failed" />
    ${saved ? html`<p class="ok-text" role="status">${saved}</p>` : null}
    <div class="form-actions">
      <button type="submit" class="primary" disabled=${checked.problems.length > 0 || pending}>
        ${pending ? 'Saving…' : existing ? 'Save new version' : 'Create config'}
      </button>
      ${checked.problems.length > 0 ? html`<span class="hint">Fix the problems above to save.</span>` : null}
      ${existing ? html`<a class="button" href=${`/ui/logs?model=${encodeURIComponent(`@${existing.slug}`)}`}>Its requests</a>` : null}
    </div>
  </form>`;
}

export function ConfigEditorPage({ params }: PageProps) {
  const id = params[0] ?? 'new';
  const isNew = id === 'new';
  const config = useApi<RoutingConfig>(isNew ? null : `/routing-configs/${enc(id)}`);
  const remove = useAction(() => del<RoutingConfig>(`/routing-configs/${enc(id)}`));
  const [revision, setRevision] = useState(0);

  if (isNew)
    return html`<p class="crumbs"><a href="/ui/configs">Routing configs</a> /</p>
      <h1 tabindex="-1">New routing config</h1>
      ${
        mayWriteNow()
          ? html`<${Section} title="Definition" id="definition">
              <${Editor} existing=${null} onSaved=${(c: RoutingConfig) => navigate(`/configs/${encodeURIComponent(c.id)}`)} />
            <//>`
          : html`<p class="hint">Creating a routing config needs the developer role.</p>`
      }`;

  const c = config.data;
  return html`<p class="crumbs"><a href="/ui/configs">Routing configs</a> /</p>
    <h1 tabindex="-1">${c ? c.name : 'Routing config'}<${ManagedBadge} item=${c} /></h1>
    <${ErrorBox} error=${config.error} title=${config.error?.status === 404 ? 'No such routing config (deleted?)' : 'The config failed to load'} />
    ${config.loading && !c ? html`<${Loading} what="the config" />` : null}
    ${
      c
        ? html`<p class="hint">
              Call it with <code>"model": "${c.model}"</code> · ${c.strategy} · version ${c.version}
            </p>
            <${Section}
              title="Definition"
              id="definition"
              actions=${html`<${WriteOnly}><${UnlessManaged} item=${c}><${ConfirmButton}
                label="Delete config"
                confirm=${`Delete @${c.slug}? Calls to it answer 404 from then on.`}
                onConfirm=${async () => {
                  if (await remove.run()) navigate('/configs');
                }}
              /><//><//>`}
            >
              <${ErrorBox} error=${remove.error} title="Delete failed" />
              ${
                mayWriteNow() && !isManaged(c)
                  ? html`<${Editor}
                      key=${c.version_id}
                      existing=${c}
                      onSaved=${() => {
                        config.reload();
                        setRevision((r) => r + 1);
                      }}
                    />`
                  : html`<pre class="mono" aria-label="Routing config definition (read-only)">${editableText(c)}</pre>`
              }
            <//>
            <${Section} title="Version history" id="versions">
              <${Versions}
                configId=${c.id}
                managed=${isManaged(c)}
                revision=${`${c.version_id}:${revision}`}
                onRestored=${() => {
                  config.reload();
                  setRevision((r) => r + 1);
                }}
              />
            <//>
            <${WriteOnly}><${Section} title="Dry-run playground" id="playground">
              <${Playground} config=${c} />
            <//><//>`
        : null
    }`;
}

// API keys: create (org-wide or for one project, with a role and optional rate limits, allowed
// models and MCP tools, expiry and metadata; the plaintext is shown once), list (never the plaintext), change a
// key's role, rotate and revoke. A read-only caller (viewer) sees the list without the controls.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { mayWriteNow, WriteOnly } from '../access.ts';
import { del, enc, patch, post } from '../api.ts';
import { Badge, ConfirmButton, Empty, ErrorBox, OnceSecret, Section, Time } from '../components/common.ts';
import { isManaged, ManagedBadge, UnlessManaged } from '../components/managed.ts';
import { PagedList, usePaged } from '../components/paged-list.ts';
import { useAction } from '../hooks.ts';
import type { PageProps } from '../page.ts';
import { projectName, useProjects } from '../projects.ts';
import { setQuery } from '../router.ts';
import type { ApiKey } from '../types.ts';

function rateLimits(d: FormData): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (const k of ['rpm', 'tpm', 'concurrency']) {
    const v = String(d.get(k) ?? '').trim();
    if (v) out[k] = Number(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The optional controls as the API takes them; an empty field leaves the default (none). */
function controls(d: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const models = String(d.get('allowed_models') ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  if (models.length > 0) out.allowed_models = models;
  const tools = String(d.get('allowed_tools') ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (tools.length > 0) out.allowed_tools = tools;
  const expires = String(d.get('expires_at') ?? '');
  // datetime-local has no zone: it is the browser's local time, so Date converts it to UTC.
  if (expires) out.expires_at = new Date(expires).toISOString();
  const pairs = String(d.get('metadata') ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.includes('='))
    .map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()]);
  if (pairs.length > 0) out.metadata = Object.fromEntries(pairs);
  return out;
}

type KeyRole = ApiKey['role'];
const ROLES: readonly KeyRole[] = ['admin', 'developer', 'viewer', 'inference'];
const ROLE_HINT: Record<KeyRole, string> = {
  admin: 'admin: everything',
  developer: 'developer: model calls; configs, budgets, webhooks and keys',
  viewer: 'viewer: read-only, no model calls',
  inference: 'inference: model calls only',
};

/** What the dashboard's Rotate button gives the old plaintext (the API takes 0 to 7 days). */
const ROTATION_GRACE_SECONDS = 3600;

export function KeysPage({ loc }: PageProps) {
  const projects = useProjects(true);
  const projectFilter = loc.query.get('project_id') ?? '';
  const [includeRevoked, setIncludeRevoked] = useState(false);
  const keys = usePaged<ApiKey>('/api-keys', {
    limit: 50,
    project_id: projectFilter || undefined,
    include_revoked: includeRevoked || undefined,
  });
  const create = useAction((body: Record<string, unknown>) => post<ApiKey>('/api-keys', body));
  const revoke = useAction((id: string) => del<ApiKey>(`/api-keys/${enc(id)}`));
  const setRole = useAction((id: string, role: KeyRole) => patch<ApiKey>(`/api-keys/${enc(id)}`, { role }));
  const rotate = useAction((id: string) =>
    post<ApiKey>(`/api-keys/${enc(id)}/rotate`, { grace_period_seconds: ROTATION_GRACE_SECONDS }),
  );
  const [secret, setSecret] = useState<ApiKey | null>(null);
  const [scope, setScope] = useState(projectFilter);

  return html`<h1 tabindex="-1">API keys</h1>
    <${WriteOnly}><${Section} title="Create a key" id="create-key">
      <form
        class="form-grid"
        aria-label="Create an API key"
        onSubmit=${async (e: Event) => {
          e.preventDefault();
          const form = e.currentTarget as HTMLFormElement;
          const d = new FormData(form);
          const body: Record<string, unknown> = { name: String(d.get('name') ?? '').trim() || undefined };
          const project = String(d.get('project_id') ?? '');
          if (project) body.project_id = project;
          const role = String(d.get('role') ?? '');
          if (role) body.role = role;
          const limits = rateLimits(d);
          if (limits) body.rate_limits = limits;
          Object.assign(body, controls(d));
          const created = await create.run(body);
          if (created) {
            form.reset();
            setSecret(created);
            keys.list.reload();
          }
        }}
      >
        <label>Name <input name="name" placeholder="ci" /></label>
        <label>Scope
          <select name="project_id" value=${scope} onChange=${(e: Event) => setScope((e.target as HTMLSelectElement).value)}>
            <option value="">Org-wide (management API and every project)</option>
            ${projects.filter((p) => !p.deleted_at).map((p) => html`<option value=${p.id}>Project: ${p.name}</option>`)}
          </select>
        </label>
        <label>Role
          <select name="role">
            <option value="">Default (admin org-wide, inference for a project)</option>
            ${ROLES.map((r) => html`<option value=${r}>${ROLE_HINT[r]}</option>`)}
          </select>
        </label>
        <label>Requests / minute <input name="rpm" type="number" min="1" placeholder="no limit" /></label>
        <label>Tokens / minute <input name="tpm" type="number" min="1" placeholder="no limit" /></label>
        <label>Concurrent calls <input name="concurrency" type="number" min="1" placeholder="no limit" /></label>
        <label>Allowed models <input name="allowed_models" placeholder="every model (e.g. gpt-4o*, @support-*)" /></label>
        <label>Allowed MCP tools <input name="allowed_tools" placeholder="every tool (e.g. memory__*, docs__search)" /></label>
        <label>Expires <input name="expires_at" type="datetime-local" /></label>
        <label>Metadata <input name="metadata" placeholder="team=search, env=prod" /></label>
        <div class="form-actions"><button type="submit" class="primary" disabled=${create.pending}>Create key</button></div>
        <${ErrorBox} error=${create.error} title="The key was not created" />
      </form>
      ${secret?.key ? html`<${OnceSecret} title=${`API key "${secret.name}":`} value=${secret.key} onDone=${() => setSecret(null)} />` : null}
    <//><//>
    <${Section}
      title="Keys"
      id="keys"
      actions=${html`
        <label class="inline">Project
          <select value=${projectFilter} onChange=${(e: Event) => setQuery({ project_id: (e.target as HTMLSelectElement).value || undefined })}>
            <option value="">All</option>
            ${projects.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
          </select>
        </label>
        <label class="inline"><input type="checkbox" checked=${includeRevoked} onChange=${(e: Event) => setIncludeRevoked((e.target as HTMLInputElement).checked)} /> Show revoked</label>`}
    >
      <${PagedList}
        paged=${keys}
        what="keys"
        errorTitle="Keys failed to load"
        empty=${html`<${Empty} title="No keys here."><p>Create one above; its plaintext is shown once.</p><//>`}
        rows=${(rows: ApiKey[]) => html`<div class="table-wrap">
          <table data-testid="keys-table">
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scope</th><th scope="col">Role</th><th scope="col">Rate limits</th><th scope="col">Models</th><th scope="col">MCP tools</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Created</th><th scope="col">Status</th></tr>
            </thead>
            <tbody>
              ${rows.map(
                (k) => html`<tr>
                  <td>${k.name}<${ManagedBadge} item=${k} /></td>
                  <td class="mono">${k.prefix}…</td>
                  <td>${k.project_id ? projectName(projects, k.project_id) : 'org-wide'}</td>
                  <td>${
                    k.revoked_at || !mayWriteNow() || isManaged(k)
                      ? k.role
                      : html`<select aria-label=${`Role of ${k.name}`} value=${k.role} disabled=${setRole.pending} onChange=${async (
                          e: Event,
                        ) => {
                          // Reloaded either way: a refused change puts the select back to the stored role.
                          await setRole.run(k.id, (e.target as HTMLSelectElement).value as KeyRole);
                          keys.list.reload();
                        }}>
                          ${ROLES.map((r) => html`<option value=${r}>${r}</option>`)}
                        </select>`
                  }</td>
                  <td>${
                    k.rate_limits
                      ? Object.entries(k.rate_limits)
                          .map(([n, v]) => `${n} ${v}`)
                          .join(', ')
                      : '—'
                  }</td>
                  <td class="mono">${k.allowed_models ? k.allowed_models.join(', ') : 'all'}</td>
                  <td class="mono">${k.allowed_tools ? k.allowed_tools.join(', ') : 'all'}</td>
                  <td>${k.expires_at ? html`<${Time} iso=${k.expires_at} />` : '—'}</td>
                  <td>${k.last_used_at ? html`<${Time} iso=${k.last_used_at} />` : '—'}</td>
                  <td><${Time} iso=${k.created_at} /></td>
                  <td>
                    ${
                      k.revoked_at
                        ? html`<${Badge} tone="bad">revoked<//> <${Time} iso=${k.revoked_at} />`
                        : html`<${Badge} tone="ok">active<//><${WriteOnly}> <${UnlessManaged} item=${k}><${ConfirmButton} label="Rotate" confirm=${`Issue a new key for ${k.name}? The old one keeps working for an hour.`} onConfirm=${async () => {
                            const rotated = await rotate.run(k.id);
                            if (rotated) {
                              setSecret(rotated);
                              keys.list.reload();
                            }
                          }} />
                          <${ConfirmButton} label="Revoke" confirm=${`Revoke ${k.name}? It stops working within a second.`} onConfirm=${async () => (await revoke.run(k.id)) && keys.list.reload()} /><//><//>`
                    }
                  </td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
      >
        <${ErrorBox} error=${setRole.error} title="The role was not changed" />
        <${ErrorBox} error=${revoke.error} title="Revoke failed" />
        <${ErrorBox} error=${rotate.error} title="Rotate failed" />
      <//>
    <//>`;
}

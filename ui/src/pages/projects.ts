// Projects: create, list, delete (a soft delete that also revokes the project's keys).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { WriteOnly } from '../access.ts';
import { del, enc, post } from '../api.ts';
import { Badge, ConfirmButton, Empty, ErrorBox, Section, Time } from '../components/common.ts';
import { ManagedBadge, UnlessManaged } from '../components/managed.ts';
import { PagedList, usePaged } from '../components/paged-list.ts';
import { useAction } from '../hooks.ts';
import { submitForm, textField } from '../lib/form.ts';
import { invalidateProjects } from '../projects.ts';
import { href } from '../router.ts';
import type { Project } from '../types.ts';

function limits(l: Project['settings']['rate_limits']): string {
  if (!l) return 'none';
  return (
    Object.entries(l)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none'
  );
}

export function ProjectsPage() {
  const [showDeleted, setShowDeleted] = useState(false);
  const paged = usePaged<Project>('/projects', {
    limit: 50,
    include_deleted: showDeleted || undefined,
  });
  const create = useAction((body: { name: string; description?: string }) => post<Project>('/projects', body));
  const remove = useAction((id: string) => del<Project>(`/projects/${enc(id)}`));
  const changed = () => {
    invalidateProjects();
    paged.list.reload();
  };

  return html`<h1 tabindex="-1">Projects</h1>
    <${WriteOnly}><${Section} title="Create a project" id="create-project">
      <form
        class="form-grid"
        aria-label="Create a project"
        onSubmit=${submitForm((d) => {
          const description = textField(d, 'description');
          return create.run({ name: textField(d, 'name'), ...(description ? { description } : {}) });
        }, changed)}
      >
        <label>Name <input name="name" required maxlength="200" placeholder="Search team" /></label>
        <label class="wide">Description <input name="description" placeholder="optional" /></label>
        <div class="form-actions"><button type="submit" class="primary" disabled=${create.pending}>Create project</button></div>
        <${ErrorBox} error=${create.error} title="The project was not created" />
        ${create.result ? html`<p class="ok-text" role="status">Created ${create.result.name} (${create.result.id}). <a href=${href('/keys', { project_id: create.result.id })}>Create a key for it</a>.</p>` : null}
      </form>
    <//><//>
    <${Section}
      title="Projects"
      id="projects"
      actions=${html`<label class="inline"><input type="checkbox" checked=${showDeleted} onChange=${(e: Event) => setShowDeleted((e.target as HTMLInputElement).checked)} /> Show deleted</label>`}
    >
      <${PagedList}
        paged=${paged}
        what="projects"
        errorTitle="Projects failed to load"
        empty=${html`<${Empty} title="No projects."><p>Create one above; each gets its own keys, settings, budgets and analytics.</p><//>`}
        rows=${(rows: Project[]) => html`<div class="table-wrap">
          <table data-testid="projects-table">
            <thead>
              <tr>
                <th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Bodies logged</th><th scope="col">Semantic cache</th>
                <th scope="col">Rate limits</th><th scope="col">Created</th><th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (p) => html`<tr>
                  <td>${p.name}${p.description ? html`<br /><small>${p.description}</small>` : null}${p.deleted_at ? html` <${Badge} tone="bad">deleted<//>` : null}<${ManagedBadge} item=${p} /></td>
                  <td class="mono">${p.slug}</td>
                  <td>${p.settings.log_bodies ? 'yes' : 'no'}</td>
                  <td>${p.settings.semantic_cache?.enabled ? `on (${p.settings.semantic_cache.mode})` : 'off'}</td>
                  <td>${limits(p.settings.rate_limits)}</td>
                  <td><${Time} iso=${p.created_at} /></td>
                  <td class="actions">
                    <a href=${href('/logs', { project_id: p.id })}>Logs</a> <a href=${href('/keys', { project_id: p.id })}>Keys</a>
                    ${p.deleted_at ? null : html`<${UnlessManaged} item=${p}><${ConfirmButton} label="Delete" confirm=${`Delete ${p.name} and revoke its keys?`} onConfirm=${async () => (await remove.run(p.id)) && changed()} /><//>`}
                  </td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
      >
        <${ErrorBox} error=${remove.error} title="Delete failed" />
      <//>
    <//>`;
}

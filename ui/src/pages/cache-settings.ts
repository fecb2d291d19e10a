// Turning a project's semantic cache on or off and choosing how it matches: the fields of
// settings.semantic_cache a user picks first, saved with PATCH /projects/{id} (which merges them
// field by field, so the rest of the project's settings stay as they are).
import { html } from 'htm/preact';
import { enc, patch } from '../api.ts';
import { ErrorBox } from '../components/common.ts';
import { useAction } from '../hooks.ts';
import { invalidateProjects } from '../projects.ts';
import type { CacheSettings, Project } from '../types.ts';

const MODES = [
  ['semantic', 'semantic: identical requests, then the nearest similar prompt'],
  ['exact', 'exact: identical requests only'],
  ['shadow', 'shadow: always call upstream, record what would have hit'],
] as const;

export function CacheSettingsForm({ project }: { project: Project }) {
  const current = project.settings.semantic_cache;
  const save = useAction((body: Partial<CacheSettings>) =>
    patch<Project>(`/projects/${enc(project.id)}`, { settings: { semantic_cache: body } }),
  );
  const submit = async (e: Event) => {
    e.preventDefault();
    const d = new FormData(e.currentTarget as HTMLFormElement);
    const body: Partial<CacheSettings> = {
      enabled: d.get('enabled') === 'on',
      mode: String(d.get('mode')) as CacheSettings['mode'],
      similarity_threshold: Number(d.get('similarity_threshold')),
      ttl_seconds: Number(d.get('ttl_seconds')),
    };
    // The project list (names and "cache off" labels on every page) is shared: reload it.
    if (await save.run(body)) invalidateProjects();
  };
  return html`<form class="form-grid" aria-label=${`Cache settings of ${project.name}`} data-testid="cache-settings" onSubmit=${submit}>
    <label class="inline full">
      <input type="checkbox" name="enabled" checked=${current.enabled} />
      Answer repeated prompts of ${project.name} from the cache
    </label>
    <label>Mode
      <select name="mode">
        ${MODES.map(([v, label]) => html`<option value=${v} selected=${current.mode === v}>${label}</option>`)}
      </select>
    </label>
    <label>Similarity threshold
      <input type="number" name="similarity_threshold" min="0.01" max="1" step="0.01" required value=${current.similarity_threshold} />
    </label>
    <label>Entry lifetime (seconds)
      <input type="number" name="ttl_seconds" min="1" max="2592000" step="1" required value=${current.ttl_seconds} />
    </label>
    <div class="form-actions">
      <button type="submit" class="primary" disabled=${save.pending}>Save cache settings</button>
      ${save.result ? html`<span class="ok-text" role="status">Saved: the cache is ${save.result.settings.semantic_cache.enabled ? `on (${save.result.settings.semantic_cache.mode})` : 'off'}.</span>` : null}
    </div>
    <${ErrorBox} error=${save.error} title="The cache settings were not saved" />
  </form>`;
}

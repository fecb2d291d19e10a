// The semantic cache of one project: entries, hit rate, money saved, how similar the served hits
// were, shadow mode's false-hit rate per candidate threshold; and a purge.

import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { WriteOnly } from '../access.ts';
import { del, enc } from '../api.ts';
import { Bars } from '../components/chart.ts';
import { ConfirmButton, Empty, ErrorBox, Loading, Section, Stat } from '../components/common.ts';
import { fromLocalInput, int, pct, toLocalInput, usd } from '../format.ts';
import { useAction, useApi } from '../hooks.ts';
import type { PageProps } from '../page.ts';
import { useProjectsState } from '../projects.ts';
import { setQuery } from '../router.ts';
import type { CacheStats } from '../types.ts';
import { CacheSettingsForm } from './cache-settings.ts';

function Stats({ projectId, since }: { projectId: string; since: string | undefined }) {
  const stats = useApi<CacheStats>(`/projects/${enc(projectId)}/cache`, { since });
  const purge = useAction(() => del<{ deleted: number }>(`/projects/${enc(projectId)}/cache`));
  if (stats.error) return html`<${ErrorBox} error=${stats.error} title="Cache stats failed to load" />`;
  if (!stats.data) return html`<${Loading} what="cache stats" />`;
  const s = stats.data;
  return html`<div class="stats" data-testid="cache-stats">
      <${Stat} label="Entries" value=${int(s.entries)} />
      <${Stat} label="Hit rate" value=${pct(s.hit_rate)} hint=${`${int(s.hits)} hits, ${int(s.misses)} misses`} />
      <${Stat} label="Saved" value=${usd(s.saved_cost_usd)} hint="upstream cost the hits avoided" />
    </div>
    ${s.hits + s.misses === 0 ? html`<${Empty} title="No cache look-ups yet."><p>With the cache on (the settings above), a repeated prompt is answered from it and counted here.</p><//>` : null}
    <div class="grid-2">
      <${Section} title="Hits by similarity" id="similarity">
        <${Bars} label="Hits by similarity" format=${int} items=${s.similarity_histogram.map((b) => ({ label: b.min === b.max ? 'exact (1.00)' : `${b.min.toFixed(2)}–${b.max.toFixed(2)}`, value: b.hits }))} />
      <//>
      <${Section} title="Shadow mode: false hits per threshold" id="shadow">
        <div class="table-wrap"><table>
          <thead><tr><th scope="col">Threshold</th><th scope="col" class="num">Would hit</th><th scope="col" class="num">Matched</th><th scope="col" class="num">False-hit rate</th></tr></thead>
          <tbody>
            ${s.shadow.by_threshold.map((t) => html`<tr><td>${t.threshold.toFixed(2)}</td><td class="num">${int(t.would_hit)}</td><td class="num">${int(t.matched)}</td><td class="num">${pct(t.false_hit_rate)}</td></tr>`)}
          </tbody>
        </table></div>
      <//>
    </div>
    <div class="form-actions">
      <${ConfirmButton}
        label="Purge cache"
        confirm="Delete every cached entry of this project?"
        onConfirm=${async () => (await purge.run()) && stats.reload()}
      />
      ${purge.result ? html`<span class="ok-text" role="status">Purged ${int(purge.result.deleted)} entries.</span>` : null}
    </div>
    <${ErrorBox} error=${purge.error} title="Purge failed" />`;
}

export function CachePage({ loc }: PageProps) {
  const state = useProjectsState(true);
  const projects = state.projects;
  const live = projects.filter((p) => !p.deleted_at);
  const chosen = loc.query.get('project_id') ?? live[0]?.id ?? '';
  const project = live.find((p) => p.id === chosen);
  const since = loc.query.get('since') ?? undefined;
  const [sinceInput, setSinceInput] = useState(toLocalInput(since));
  return html`<h1 tabindex="-1">Cache</h1>
    <form
      class="toolbar"
      aria-label="Cache stats settings"
      onSubmit=${(e: Event) => {
        e.preventDefault();
        setQuery({ project_id: chosen, since: fromLocalInput(sinceInput) });
      }}
    >
      <label>Project
        <select value=${chosen} onChange=${(e: Event) => setQuery({ project_id: (e.target as HTMLSelectElement).value, since })}>
          ${live.map((p) => html`<option value=${p.id}>${p.name}${p.settings.semantic_cache?.enabled ? ` (cache ${p.settings.semantic_cache.mode})` : ' (cache off)'}</option>`)}
        </select>
      </label>
      <label>Count calls since <input type="datetime-local" value=${sinceInput} onInput=${(e: Event) => setSinceInput((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Apply</button>
    </form>
    <${ErrorBox} error=${state.error} title="Projects failed to load" />
    ${
      project
        ? html`<${WriteOnly}><${Section} title="Settings" id="cache-settings-section">
            <${CacheSettingsForm} key=${project.id} project=${project} />
          <//><//>`
        : null
    }
    ${chosen ? html`<${Stats} key=${`${chosen}|${since ?? ''}`} projectId=${chosen} since=${since} />` : null}
    ${!chosen && !state.loaded ? html`<${Loading} what="projects" />` : null}
    ${!chosen && state.loaded && !state.error ? html`<${Empty} title="No projects."><p><a href="/ui/projects">Create a project</a> first; each project has its own cache.</p><//>` : null}`;
}

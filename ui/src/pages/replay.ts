// Replay a logged request against another routing config or model, as a dry run (the decision
// only) or for real, and read the original and the replay side by side.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { enc, post } from '../api.ts';
import { ErrorBox, JsonView, StatusBadge } from '../components/common.ts';
import { Candidates } from '../components/waterfall.ts';
import { ms, responseText, usd } from '../format.ts';
import { useAction, useApi } from '../hooks.ts';
import type { DryRun, LogRecord, Page, ReplayResult, RoutingConfig } from '../types.ts';

type Outcome = { kind: 'dry'; body: DryRun } | { kind: 'real'; body: ReplayResult };

function Side({
  title,
  testid,
  rows,
  text,
  body,
}: {
  title: string;
  testid: string;
  rows: Array<[string, unknown]>;
  text: string | null;
  body: unknown;
}) {
  return html`<section class="side" data-testid=${testid} aria-label=${title}>
    <h3>${title}</h3>
    <dl class="kv">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
    ${text !== null ? html`<blockquote class="answer">${text}</blockquote>` : null}
    <${JsonView} value=${body} label=${`${title} body`} fold=${20} />
  </section>`;
}

function Compare({ log, outcome, target }: { log: LogRecord; outcome: Outcome; target: string }) {
  if (outcome.kind === 'dry') {
    const d = outcome.body.dry_run;
    const t = log.decision_trace;
    return html`<div class="side-by-side">
      <div>
        <${Side}
          title="Original decision"
          testid="replay-original"
          rows=${[
            ['Policy', t?.policy ?? '—'],
            ['Config', t?.config ? `@${t.config.slug} v${t.config.version}` : '—'],
            ['Served by', t?.served_by ? `${t.served_by.provider}/${t.served_by.model}` : (log.model_used ?? '—')],
          ]}
          text=${null}
          body=${t}
        />
        <${Candidates} trace=${t} />
      </div>
      <div>
        <${Side}
          title=${`Replay decision (${target}, dry run)`}
          testid="replay-result"
          rows=${[
            ['Policy', d.policy],
            ['Config', d.config ? `@${d.config.slug} v${d.config.version}` : '—'],
            ['Would call', d.target ? `${d.target.provider}/${d.target.model}` : 'nothing eligible'],
          ]}
          text=${null}
          body=${outcome.body}
        />
        <${Candidates} trace=${d} />
      </div>
    </div>`;
  }
  const r = outcome.body;
  return html`<div class="side-by-side">
    <${Side}
      title="Original"
      testid="replay-original"
      rows=${[
        ['Model', `${log.provider ?? '—'}/${log.model_used ?? log.model_requested ?? '—'}`],
        ['Status', html`<${StatusBadge} code=${log.status_code} />`],
        ['Latency', ms(log.latency_ms)],
        ['Cost', usd(log.cost_usd)],
      ]}
      text=${responseText(log.response)}
      body=${log.response}
    />
    <${Side}
      title=${`Replay (${target})`}
      testid="replay-result"
      rows=${[
        ['Model', `${r.provider ?? '—'}/${r.model_used ?? '—'}`],
        ['Status', html`<${StatusBadge} code=${r.status_code} />`],
        ['Latency', ms(r.latency_ms)],
        ['Cost', usd(r.cost_usd)],
        ['Logged as', html`<a href=${`/ui/logs/${enc(r.request_id)}`} class="mono">${r.request_id}</a>`],
      ]}
      text=${responseText(r.response)}
      body=${r.response}
    />
  </div>`;
}

export function ReplayPanel({ log, org }: { log: LogRecord; org: boolean }) {
  const configs = useApi<Page<RoutingConfig>>(org ? '/routing-configs' : null, { limit: 200 });
  const [mode, setMode] = useState<'config' | 'model'>('config');
  const [slug, setSlug] = useState('');
  const [model, setModel] = useState('');
  const [dryRun, setDryRun] = useState(true);
  const [target, setTarget] = useState('');
  const replay = useAction(async (): Promise<Outcome> => {
    const body = mode === 'config' ? { routing_config: slug, dry_run: dryRun } : { model, dry_run: dryRun };
    setTarget(mode === 'config' ? `@${slug.replace(/^@/, '')}` : model);
    const res = await post<DryRun | ReplayResult>(`/logs/${enc(log.id)}/replay`, body);
    return 'dry_run' in res ? { kind: 'dry', body: res } : { kind: 'real', body: res as ReplayResult };
  });
  const choice = mode === 'config' ? slug.trim() : model.trim();
  const options = configs.data?.data ?? [];

  if (!log.bodies_retained)
    return html`<p class="hint">This request's body was not kept (project setting, body retention or size), so it cannot be replayed.</p>`;
  return html`<form
      class="replay-form"
      aria-label="Replay"
      onSubmit=${(e: Event) => {
        e.preventDefault();
        if (choice) void replay.run();
      }}
    >
      <fieldset>
        <legend>Run it against</legend>
        <label class="inline"><input type="radio" name="mode" value="config" checked=${mode === 'config'} onChange=${() => setMode('config')} /> Another routing config</label>
        <label class="inline"><input type="radio" name="mode" value="model" checked=${mode === 'model'} onChange=${() => setMode('model')} /> Another model</label>
      </fieldset>
      ${
        mode === 'config'
          ? org && options.length > 0
            ? html`<label>Routing config
                <select name="routing_config" value=${slug} onChange=${(e: Event) => setSlug((e.target as HTMLSelectElement).value)}>
                  <option value="">Choose a config…</option>
                  ${options.map((c) => html`<option value=${c.slug}>@${c.slug} · ${c.name} (${c.strategy})</option>`)}
                </select>
              </label>`
            : html`<label>Routing config slug
                <input name="routing_config" value=${slug} placeholder="main" onInput=${(e: Event) => setSlug((e.target as HTMLInputElement).value)} />
              </label>`
          : html`<label>Model
              <input name="model" value=${model} placeholder="anthropic/claude-3-5-haiku-latest" onInput=${(e: Event) => setModel((e.target as HTMLInputElement).value)} />
            </label>`
      }
      <label class="inline"><input type="checkbox" name="dry_run" checked=${dryRun} onChange=${(e: Event) => setDryRun((e.target as HTMLInputElement).checked)} /> Dry run: the decision only, no upstream call, nothing spent</label>
      <div class="form-actions">
        <button type="submit" class="primary" disabled=${!choice || replay.pending}>${replay.pending ? 'Replaying…' : dryRun ? 'Show the decision' : 'Replay for real'}</button>
      </div>
      <${ErrorBox} error=${configs.error} title="Routing configs failed to load" />
    </form>
    <${ErrorBox} error=${replay.error} title="Replay failed" />
    ${replay.result ? html`<${Compare} log=${log} outcome=${replay.result} target=${target} />` : null}`;
}

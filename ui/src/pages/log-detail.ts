// One request in full: what was asked and answered, the routing decision as a waterfall of
// attempts, the cost breakdown, and a replay against another config or model.
import { html } from 'htm/preact';
import { enc } from '../api.ts';
import { Badge, ErrorBox, JsonView, Loading, Section, StatusBadge, Time } from '../components/common.ts';
import { Candidates, Waterfall } from '../components/waterfall.ts';
import { int, ms, pct, usd } from '../format.ts';
import { useApi } from '../hooks.ts';
import type { PageProps } from '../page.ts';
import { projectName, useProjects } from '../projects.ts';
import { href } from '../router.ts';
import type { LogRecord } from '../types.ts';
import { ReplayPanel } from './replay.ts';

/** The call's trace in the operator's tracing backend, when SWITCHYARD_TRACE_URL_TEMPLATE names one. */
function otelTrace(log: LogRecord) {
  if (log.otel_trace_url)
    return html`<a href=${log.otel_trace_url} target="_blank" rel="noopener noreferrer" class="mono" data-testid="otel-trace-link">${log.otel_trace_id}</a>`;
  return log.otel_trace_id ? html`<span class="mono">${log.otel_trace_id}</span>` : '—';
}

function Summary({ log, projects }: { log: LogRecord; projects: ReturnType<typeof useProjects> }) {
  const link = (key: string, value: string | null) =>
    value ? html`<a href=${href('/logs', { [key]: value })}>${value}</a>` : '—';
  const rows: Array<[string, unknown]> = [
    ['Time', html`<${Time} iso=${log.created_at} />`],
    ['Status', html`<${StatusBadge} code=${log.status_code} />`],
    ['Type', log.request_type],
    [
      'Project',
      log.project_id
        ? html`<a href=${href('/logs', { project_id: log.project_id })}>${projectName(projects, log.project_id)}</a>`
        : '—',
    ],
    ['Model asked', log.model_requested ?? '—'],
    ['Model used', log.model_used ?? '—'],
    ['Provider', log.provider ?? '—'],
    ['Latency', `${ms(log.latency_ms)}${log.ttfb_ms !== null ? ` (first byte ${ms(log.ttfb_ms)})` : ''}`],
    [
      'Tokens',
      `${int(log.input_tokens)} in · ${int(log.output_tokens)} out · ${int(log.cache_read_tokens)} cache read · ${int(log.cache_write_tokens)} cache write`,
    ],
    ['Cost', usd(log.cost_usd)],
    ['End user', link('end_user', log.end_user)],
    ['Trace id', link('trace_id', log.trace_id)],
    ['OpenTelemetry trace', otelTrace(log)],
    ['Conversation', link('conversation_id', log.conversation_id)],
    ['API key', log.api_key_id ?? '—'],
    ['Credential', log.credential_id ?? '—'],
    [
      'Cache',
      log.cache
        ? `${log.cache}${log.cache_similarity !== null ? ` (similarity ${pct(log.cache_similarity)})` : ''}${log.saved_cost_usd ? `, saved ${usd(log.saved_cost_usd)}` : ''}`
        : 'not consulted',
    ],
    [
      'Replay of',
      log.replay_of ? html`<a href=${`/ui/logs/${enc(log.replay_of)}`} class="mono">${log.replay_of}</a>` : '—',
    ],
  ];
  const tags = Object.entries(log.tags ?? {});
  if (tags.length > 0) rows.push(['Tags', tags.map(([k, v]) => html`<${Badge} tone="neutral">${k}=${v}<//> `)]);
  return html`<dl class="kv kv-grid" data-testid="log-summary">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

function CostBreakdown({ log }: { log: LogRecord }) {
  const c = log.cost;
  const rows: Array<[string, number]> = [
    ['Input tokens', c.input_usd],
    ['Output tokens', c.output_usd],
    ['Cache reads', c.cache_read_usd],
    ['Cache writes', c.cache_write_usd],
    ['Other attempts (failed fallbacks, ensemble losers, cascade steps)', c.other_attempts_usd],
  ];
  return html`<table class="cost" data-testid="cost-breakdown">
    <caption class="sr-only">Cost breakdown</caption>
    <tbody>
      ${rows.map(([k, v]) => html`<tr><th scope="row">${k}</th><td class="num">${usd(v)}</td></tr>`)}
    </tbody>
    <tfoot><tr><th scope="row">Total</th><td class="num"><strong>${usd(c.total_usd)}</strong></td></tr></tfoot>
  </table>`;
}

function Decision({ log }: { log: LogRecord }) {
  const t = log.decision_trace;
  if (!t) return html`<p class="hint">No decision trace was recorded for this request.</p>`;
  const facts: Array<[string, unknown]> = [
    ['Policy', t.policy ?? '—'],
    ['Config', t.config ? `@${t.config.slug} (version ${t.config.version})` : 'direct model call'],
    ['Matched rule', t.matched_rule ?? '—'],
    ['Variant', t.variant_bucket ?? '—'],
    ['Served by', t.served_by ? `${t.served_by.provider}/${t.served_by.model}` : '—'],
  ];
  return html`<dl class="kv kv-grid">${facts.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
    <h3>Attempts</h3>
    <${Waterfall} trace=${t} totalMs=${log.latency_ms} />
    <h3>Candidates</h3>
    <${Candidates} trace=${t} />
    ${t.limits ? html`<h3>Limits</h3><${JsonView} value=${t.limits} label="Limits" />` : null}
    <details>
      <summary>Raw decision trace</summary>
      <${JsonView} value=${t} label="Decision trace" />
    </details>`;
}

export function LogDetailPage({ session, params }: PageProps) {
  const id = params[0] ?? '';
  const org = session.scope === 'org';
  const projects = useProjects(org);
  const log = useApi<LogRecord>(`/logs/${enc(id)}`);
  return html`<p class="crumbs"><a href="/ui/logs">Logs</a> /</p>
    <h1 tabindex="-1" class="mono">${id}</h1>
    <${ErrorBox} error=${log.error} title=${log.error?.status === 404 ? 'No such request (or it belongs to another project)' : 'The request failed to load'} />
    ${log.loading && !log.data ? html`<${Loading} what="the request" />` : null}
    ${
      log.data
        ? html`<div class="detail">
            <${Section} title="Summary" id="summary"><${Summary} log=${log.data} projects=${projects} /><//>
            <${Section} title="Decision trace" id="trace"><${Decision} log=${log.data} /><//>
            <div class="grid-2">
              <${Section} title="Cost breakdown" id="cost"><${CostBreakdown} log=${log.data} /><//>
              ${
                log.data.error
                  ? html`<${Section} title="Error" id="error"><${JsonView} value=${log.data.error} label="Error" /><//>`
                  : null
              }
            </div>
            <div class="grid-2">
              <${Section} title="Request body" id="request-body">
                ${log.data.bodies_retained || log.data.request !== null ? html`<${JsonView} value=${log.data.request} label="Request body" />` : html`<p class="hint">Not kept: the project does not log bodies, or they passed the body retention.</p>`}
              <//>
              <${Section} title="Response body" id="response-body">
                ${log.data.bodies_retained || log.data.response !== null ? html`<${JsonView} value=${log.data.response} label="Response body" />` : html`<p class="hint">Not kept.</p>`}
              <//>
            </div>
            <${Section} title="Replay" id="replay"><${ReplayPanel} log=${log.data} org=${org} /><//>
          </div>`
        : null
    }`;
}

// Logs explorer: every filter of GET /manage/v1/logs, kept in the address so a view can be shared,
// and cursor paging (the list is newest first and reads an index, so it is fast at any size).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { Empty, ErrorBox, Loading, Pager, Updating } from '../components/common.ts';
import { fromLocalInput, toLocalInput } from '../format.ts';
import { useApi } from '../hooks.ts';
import type { PageProps } from '../page.ts';
import { useProjects } from '../projects.ts';
import { href, setQuery } from '../router.ts';
import type { LogSummary, Page } from '../types.ts';
import { LogsTable } from './logs-table.ts';

const TEXT_FILTERS = [
  ['model', 'Model', 'asked for or used, e.g. openai/gpt-4o-mini or @main'],
  ['provider', 'Provider', 'openai, anthropic, …'],
  ['end_user', 'End user', ''],
  ['trace_id', 'Trace id', ''],
  ['conversation_id', 'Conversation id', ''],
] as const;
// Suggestions for the request type filter: the inference calls first (what the analytics report
// counts by default), then the reads and listings around files, batches and responses.
const REQUEST_TYPES = [
  'chat_completion',
  'message',
  'embedding',
  'response_create',
  'image_generation',
  'audio_speech',
  'audio_transcription',
  'audio_translation',
  'batch_execution',
  'count_tokens',
  'batch_create',
  'batch_list',
  'batch_retrieve',
  'batch_results',
  'batch_cancel',
  'batch_delete',
  'file_upload',
  'file_list',
  'file_retrieve',
  'file_download',
  'file_delete',
  'response_retrieve',
  'response_delete',
  'response_cancel',
  'response_input_items',
];
const VENDORS = ['openai', 'anthropic', 'google', 'azure-openai', 'bedrock', 'together', 'fireworks'];
export const FILTER_KEYS = [
  'start',
  'end',
  'project_id',
  'status',
  'model',
  'provider',
  'end_user',
  'tags',
  'min_latency_ms',
  'trace_id',
  'conversation_id',
  'request_type',
] as const;

function tagsProblem(text: string): string | null {
  if (text.trim() === '') return null;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      return 'Tags must be a JSON object, e.g. {"team":"search"}';
    if (!Object.values(v).every((x) => typeof x === 'string')) return 'Every tag value must be a string';
    return null;
  } catch {
    return 'Tags must be valid JSON, e.g. {"team":"search"}';
  }
}

type Values = Record<string, string>;

function initial(query: URLSearchParams): Values {
  const v: Values = {};
  for (const k of FILTER_KEYS) v[k] = query.get(k) ?? '';
  v.start = toLocalInput(query.get('start'));
  v.end = toLocalInput(query.get('end'));
  v.limit = query.get('limit') ?? '50';
  return v;
}

function Filters({
  query,
  org,
  onApply,
}: {
  query: URLSearchParams;
  org: boolean;
  onApply: (v: Record<string, string | undefined>) => void;
}) {
  const projects = useProjects(org);
  const [values, setValues] = useState<Values>(() => initial(query));
  const [tagError, setTagError] = useState<string | null>(null);
  // Controlled fields: a re-render while the list loads must not undo what is being typed.
  const bind = (name: string) => ({
    name,
    value: values[name] ?? '',
    onInput: (e: Event) => setValues({ ...values, [name]: (e.target as HTMLInputElement).value }),
  });
  const submit = (e: Event) => {
    e.preventDefault();
    const v = (k: string) => (values[k] ?? '').trim() || undefined;
    const problem = tagsProblem(v('tags') ?? '');
    setTagError(problem);
    if (problem) return;
    onApply({
      ...Object.fromEntries(FILTER_KEYS.map((k) => [k, v(k)])),
      start: fromLocalInput(v('start') ?? ''),
      end: fromLocalInput(v('end') ?? ''),
      limit: v('limit') === '50' ? undefined : v('limit'),
    });
  };
  const current = values.project_id ?? '';
  return html`<form class="filters card" aria-label="Log filters" onSubmit=${submit}>
    <label>From <input type="datetime-local" ...${bind('start')} /></label>
    <label>To <input type="datetime-local" ...${bind('end')} /></label>
    ${
      org
        ? html`<label>Project
            <select ...${bind('project_id')}>
              <option value="">All projects</option>
              ${projects.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
              ${current && !projects.some((p) => p.id === current) ? html`<option value=${current}>${current}</option>` : null}
            </select>
          </label>`
        : null
    }
    <label>Status
      <select ...${bind('status')}>
        <option value="">Any</option>
        <option value="2xx">2xx</option>
        <option value="4xx">4xx</option>
        <option value="5xx">5xx</option>
      </select>
    </label>
    ${TEXT_FILTERS.map(
      ([name, label, hint]) => html`<label>${label}
        <input ...${bind(name)} placeholder=${hint} list=${name === 'provider' ? 'vendors' : undefined} />
      </label>`,
    )}
    <label>Request type
      <input ...${bind('request_type')} list="request-types" placeholder="chat_completion" />
    </label>
    <label>Min latency (ms) <input type="number" min="0" step="1" ...${bind('min_latency_ms')} /></label>
    <label class="wide">Tags (JSON)
      <input ...${bind('tags')} placeholder='{"team":"search"}' aria-invalid=${tagError ? 'true' : undefined} aria-describedby="tags-error" />
      <span id="tags-error" class="field-error" role=${tagError ? 'alert' : undefined}>${tagError}</span>
    </label>
    <label>Page size
      <select ...${bind('limit')}>
        ${['25', '50', '100', '200'].map((n) => html`<option value=${n}>${n}</option>`)}
      </select>
    </label>
    <datalist id="vendors">${VENDORS.map((v) => html`<option value=${v}></option>`)}</datalist>
    <datalist id="request-types">${REQUEST_TYPES.map((v) => html`<option value=${v}></option>`)}</datalist>
    <div class="form-actions">
      <button type="submit" class="primary">Apply filters</button>
      <a href="/ui/logs" class="button">Clear</a>
    </div>
  </form>`;
}

export function LogsPage({ session, loc }: PageProps) {
  const org = session.scope === 'org';
  const projects = useProjects(org);
  const q = loc.query;
  const [prev, setPrev] = useState<string[]>([]);
  const filters: Record<string, string | undefined> = {};
  for (const k of FILTER_KEYS) filters[k] = q.get(k) ?? undefined;
  const limit = q.get('limit') ?? undefined;
  const cursor = q.get('cursor') ?? undefined;
  const list = useApi<Page<LogSummary>>('/logs', { ...filters, limit: limit ?? 50, cursor });
  const active = FILTER_KEYS.filter((k) => q.get(k));

  const go = (next: string | undefined) => setQuery({ ...filters, limit, cursor: next });
  return html`<h1 tabindex="-1">Logs</h1>
    <${Filters}
      key=${active.map((k) => `${k}=${q.get(k)}`).join('&') + (limit ?? '')}
      query=${q}
      org=${org}
      onApply=${(v: Record<string, string | undefined>) => {
        setPrev([]);
        setQuery(v);
      }}
    />
    <${Updating} when=${list.loading && list.data !== undefined} />
    <${ErrorBox} error=${list.error} title="The log list failed" />
    ${list.loading && !list.data ? html`<${Loading} what="requests" />` : null}
    ${
      list.data && list.data.data.length === 0
        ? html`<${Empty} title=${active.length > 0 ? 'No requests match these filters.' : 'No requests logged yet.'}>
            ${
              active.length > 0
                ? html`<p>Loosen a filter or <a href="/ui/logs">clear them all</a>.</p>`
                : html`<p>
                    Send a request through the gateway with an API key, for example <code>POST /alpha/v1/chat/completions</code>;
                    it is listed here within a second.
                  </p>`
            }
          <//>`
        : null
    }
    ${
      list.data && list.data.data.length > 0
        ? html`<p class="hint" role="status">
              ${list.data.data.length} requests${active.length > 0 ? ` matching ${active.join(', ')}` : ''}${list.data.has_more ? ', more on the next page' : ''}.
            </p>
            <${LogsTable} rows=${list.data.data} org=${org} projects=${projects} />
            <${Pager}
              hasMore=${list.data.has_more}
              atFirst=${!cursor}
              canPrev=${prev.length > 0 || Boolean(cursor)}
              onFirst=${() => {
                setPrev([]);
                go(undefined);
              }}
              onPrev=${() => {
                const stack = [...prev];
                const back = stack.pop();
                setPrev(stack);
                go(back || undefined);
              }}
              onNext=${() => {
                setPrev([...prev, cursor ?? '']);
                go(list.data?.next_cursor ?? undefined);
              }}
            />`
        : null
    }
    <p class="hint"><a href=${href('/logs', { status: '5xx' })}>Server errors</a> · <a href=${href('/logs', { status: '4xx' })}>Client errors</a> · <a href=${href('/logs', { min_latency_ms: '5000' })}>Slower than 5 s</a></p>`;
}

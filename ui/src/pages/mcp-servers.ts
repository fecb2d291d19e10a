// MCP tool servers behind /mcp/v1: register one (HTTP transports; stdio needs an allow-listed
// command, which the form accepts too), see what each offers now with its health and latency,
// pause, resume or delete it. Header and env values are write-only: only their names come back.

import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { WriteOnly } from '../access.ts';
import { del, enc, get, patch, post } from '../api.ts';
import type { operations } from '../api-types.ts';
import { Badge, ConfirmButton, Empty, ErrorBox, Loading, Section } from '../components/common.ts';
import { useAction, useApi } from '../hooks.ts';
import { submitForm, textField } from '../lib/form.ts';
import type { Page } from '../types.ts';

type Json<Op extends keyof operations, S extends 200 | 201> =
  operations[Op]['responses'] extends Record<S, { content: { 'application/json': infer B } }> ? B : never;
type McpServer = Json<'get_mcp_server', 200>;
type ServerTools = Json<'list_mcp_server_tools', 200>;

function CreateForm({ onCreated }: { onCreated: () => void }) {
  const create = useAction((body: Record<string, unknown>) => post<McpServer>('/mcp-servers', body));
  const [transport, setTransport] = useState('streamable_http');
  return html`<form
    class="form-grid"
    aria-label="Register an MCP server"
    onSubmit=${submitForm((d) => {
      const target = textField(d, 'target');
      const args = textField(d, 'args');
      return create.run({
        name: textField(d, 'name'),
        transport,
        ...(transport === 'stdio' ? { command: target, args: args ? args.split(/\s+/) : [] } : { url: target }),
      });
    }, onCreated)}
  >
    <label>Name <input name="name" required pattern="[a-z0-9_\\-]+" placeholder="github" /></label>
    <label>Transport
      <select value=${transport} onChange=${(e: Event) => setTransport((e.target as HTMLSelectElement).value)}>
        <option value="streamable_http">streamable HTTP</option>
        <option value="sse">SSE</option>
        <option value="stdio">stdio</option>
      </select>
    </label>
    <label class="wide">${transport === 'stdio' ? 'Command (on SWITCHYARD_MCP_STDIO_COMMANDS)' : 'URL'}
      <input name="target" required placeholder=${transport === 'stdio' ? '/usr/bin/node' : 'the server URL, ending in /mcp'} />
    </label>
    ${transport === 'stdio' ? html`<label class="wide">Arguments <input name="args" placeholder="space-separated" /></label>` : null}
    <div class="form-actions"><button type="submit" class="primary" disabled=${create.pending}>Register server</button></div>
    <${ErrorBox} error=${create.error} title="The server was not registered" />
  </form>`;
}

function ServerCard({ s, onChanged }: { s: McpServer; onChanged: () => void }) {
  const [tools, setTools] = useState<ServerTools | null>(null);
  const probe = useAction(() => get<ServerTools>(`/mcp-servers/${enc(s.id)}/tools`));
  const toggle = useAction(() => patch<McpServer>(`/mcp-servers/${enc(s.id)}`, { enabled: !s.enabled }));
  const remove = useAction(() => del<McpServer>(`/mcp-servers/${enc(s.id)}`));
  const health = tools?.health ?? 'unknown';
  return html`<li class="card" data-testid="mcp-server">
    <div class="card-head">
      <h3 class="mono">${s.name}</h3>
      <${Badge} tone=${s.enabled ? 'ok' : 'warn'}>${s.enabled ? 'enabled' : 'paused'}<//>
      ${tools ? html`<${Badge} tone=${health === 'up' ? 'ok' : health === 'down' ? 'bad' : 'neutral'}>${health}<//>` : null}
    </div>
    <p class="hint mono">${s.transport}: ${s.url ?? [s.command, ...s.args].join(' ')}</p>
    <p class="hint">
      ${s.project_id ? html`Project <code>${s.project_id}</code>` : 'Whole organization'}
      ${s.allowed_tools ? html` · tools ${s.allowed_tools.join(', ')}` : null}
      ${s.header_names.length > 0 ? html` · headers ${s.header_names.join(', ')}` : null}
    </p>
    ${
      tools
        ? html`<p class="hint">${tools.latency_ms === null ? '' : `tools/list ${tools.latency_ms} ms · `}${tools.error ?? `${tools.tools.length} tools`}</p>
            <ul class="mono">${tools.tools.map((t) => html`<li key=${t.name} title=${t.description ?? ''}>${t.name}</li>`)}</ul>`
        : null
    }
    <div class="card-actions">
      <button type="button" disabled=${probe.pending} onClick=${async () => setTools((await probe.run()) ?? null)}>Check tools</button>
      <${WriteOnly}>
        <button type="button" disabled=${toggle.pending} onClick=${async () => (await toggle.run()) && onChanged()}>${s.enabled ? 'Pause' : 'Resume'}</button>
        <${ConfirmButton} label="Delete" confirm=${`Delete ${s.name}?`} onConfirm=${async () => (await remove.run()) && onChanged()} />
      <//>
    </div>
    <${ErrorBox} error=${probe.error ?? toggle.error ?? remove.error} title="The server action failed" />
  </li>`;
}

export function McpServersPage() {
  const servers = useApi<Page<McpServer>>('/mcp-servers', { limit: 200 });
  const list = servers.data?.data ?? [];
  return html`<h1 tabindex="-1">MCP servers</h1>
    <p class="hint">Tool servers behind <code>/mcp/v1</code>; their tools are named <code>&lt;server&gt;__&lt;tool&gt;</code>.</p>
    <${WriteOnly}><${Section} title="Register a server" id="create-mcp-server">
      <${CreateForm} onCreated=${() => servers.reload()} />
    <//><//>
    <${Section} title="Servers" id="mcp-servers">
      <${ErrorBox} error=${servers.error} title="Servers failed to load" />
      ${servers.loading && !servers.data ? html`<${Loading} what="servers" />` : null}
      ${servers.data && list.length === 0 ? html`<${Empty} title="No MCP servers yet."><p>Register one above to reach its tools through /mcp/v1 with a Switchyard key.</p><//>` : null}
      ${list.length > 0 ? html`<ul class="cards">${list.map((s) => html`<${ServerCard} key=${s.id} s=${s} onChanged=${() => servers.reload()} />`)}</ul>` : null}
    <//>`;
}

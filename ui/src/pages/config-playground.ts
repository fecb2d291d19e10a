// Paste messages, see what the config would decide (POST .../test with dry_run), or run it for
// real. Plain text becomes one user message; a JSON array is sent as the messages.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ApiError, enc, post } from '../api.ts';
import { ErrorBox, JsonView } from '../components/common.ts';
import { Candidates } from '../components/waterfall.ts';
import { responseText } from '../format.ts';
import { useAction } from '../hooks.ts';
import type { DryRun, RoutingConfig } from '../types.ts';

const EXAMPLE = JSON.stringify([{ role: 'user', content: 'Summarize the plot of Hamlet in one sentence.' }], null, 2);

export function toMessages(text: string): Array<{ role: string; content: unknown }> {
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    const v: unknown = JSON.parse(trimmed);
    const list = Array.isArray(v) ? v : [v];
    for (const m of list) {
      if (typeof m !== 'object' || m === null || typeof (m as { role?: unknown }).role !== 'string')
        throw new ApiError(0, 'Each message needs a "role" and a "content"', null, 'messages');
    }
    return list as Array<{ role: string; content: unknown }>;
  }
  return [{ role: 'user', content: trimmed }];
}

export function Playground({ config }: { config: RoutingConfig }) {
  const [text, setText] = useState(EXAMPLE);
  const [dryRun, setDryRun] = useState(true);
  const run = useAction(async () => {
    let messages: Array<{ role: string; content: unknown }>;
    try {
      messages = toMessages(text);
    } catch (err) {
      throw err instanceof ApiError
        ? err
        : new ApiError(0, `The messages are not valid JSON: ${String(err)}`, null, 'messages');
    }
    return await post<DryRun | Record<string, unknown>>(`/routing-configs/${enc(config.id)}/test`, {
      messages,
      dry_run: dryRun,
    });
  });
  const result = run.result;
  const decision = result && 'dry_run' in result ? (result as DryRun).dry_run : null;
  return html`<form
      aria-label="Dry-run playground"
      onSubmit=${(e: Event) => {
        e.preventDefault();
        void run.run();
      }}
    >
      <label for="playground-messages">Messages (JSON array of {role, content}, or plain text for one user message)</label>
      <textarea id="playground-messages" class="code" rows="6" spellcheck="false" value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea>
      <label class="inline"><input type="checkbox" checked=${dryRun} onChange=${(e: Event) => setDryRun((e.target as HTMLInputElement).checked)} /> Dry run (decision only, no upstream call)</label>
      <div class="form-actions">
        <button type="submit" class="primary" disabled=${run.pending || text.trim() === ''}>${run.pending ? 'Running…' : dryRun ? 'Show the decision' : 'Run for real'}</button>
      </div>
    </form>
    <${ErrorBox} error=${run.error} title="The test failed" />
    ${
      decision
        ? html`<div data-testid="playground-result">
            <p>
              Policy <strong>${decision.policy}</strong>
              ${decision.config ? html` · @${decision.config.slug} v${decision.config.version}` : null} · would call <strong>${decision.target ? `${decision.target.provider}/${decision.target.model}` : 'nothing (no eligible candidate)'}</strong>
              ${decision.matched_rule ? html` · rule ${decision.matched_rule}` : null}
              ${decision.variant_bucket ? html` · variant ${decision.variant_bucket}` : null}
            </p>
            <${Candidates} trace=${decision} />
            <details><summary>Decision envelope</summary><${JsonView} value=${result} label="Decision envelope" /></details>
          </div>`
        : null
    }
    ${
      result && !decision
        ? html`<div data-testid="playground-result">
            ${responseText((result as { response?: unknown }).response ?? result) ? html`<blockquote class="answer">${responseText((result as { response?: unknown }).response ?? result)}</blockquote>` : null}
            <${JsonView} value=${result} label="Result" />
          </div>`
        : null
    }`;
}

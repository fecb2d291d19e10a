// A JSON editor: a plain textarea (native editing, undo and keyboard behaviour, Tab still moves
// focus) checked on every change against a JSON Schema, with each problem listed by line and a
// button that selects that line. Errors the server returns (a 400 naming `param`) are listed the
// same way by the caller through `extra`.
import { html } from 'htm/preact';
import { useMemo, useRef } from 'preact/hooks';
import { JsonSyntaxError, lineOf, type Parsed, parseWithPositions } from '../lib/json-positions.ts';
import { type JsonSchema, validate } from '../lib/schema.ts';

export interface Problem {
  line: number | null;
  message: string;
  source: 'syntax' | 'schema' | 'server';
}

export interface Checked {
  parsed: Parsed | null;
  problems: Problem[];
}

export function check(text: string, schema: JsonSchema): Checked {
  let parsed: Parsed;
  try {
    parsed = parseWithPositions(text);
  } catch (err) {
    const line = err instanceof JsonSyntaxError ? err.line : null;
    return {
      parsed: null,
      problems: [{ line, message: err instanceof Error ? err.message : String(err), source: 'syntax' }],
    };
  }
  const problems = validate(schema, parsed.value).map((e) => ({
    line: lineOf(parsed, e.path),
    message: e.message,
    source: 'schema' as const,
  }));
  return { parsed, problems };
}

function selectLine(area: HTMLTextAreaElement, line: number): void {
  const lines = area.value.split('\n');
  let start = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) start += (lines[i]?.length ?? 0) + 1;
  const end = start + (lines[line - 1]?.length ?? 0);
  area.focus();
  area.setSelectionRange(start, end);
  const lh = Number.parseFloat(getComputedStyle(area).lineHeight) || 18;
  area.scrollTop = Math.max(0, (line - 3) * lh);
}

export function JsonEditor({
  id,
  label,
  value,
  onChange,
  schema,
  extra = [],
  rows = 18,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (text: string) => void;
  schema: JsonSchema;
  extra?: Problem[];
  rows?: number;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  const checked = useMemo(() => check(value, schema), [value, schema]);
  const problems = [...checked.problems, ...extra];
  const lineCount = value.split('\n').length;
  return html`<div class="json-editor">
    <label for=${id}>${label}</label>
    <textarea
      id=${id}
      ref=${area}
      class="code"
      rows=${Math.min(40, Math.max(rows, lineCount + 1))}
      spellcheck="false"
      autocapitalize="off"
      value=${value}
      aria-invalid=${problems.length > 0 ? 'true' : 'false'}
      aria-describedby=${`${id}-problems`}
      onInput=${(e: Event) => onChange((e.target as HTMLTextAreaElement).value)}
    ></textarea>
    <div id=${`${id}-problems`} aria-live="polite" data-testid="editor-problems">
      ${
        problems.length === 0
          ? html`<p class="ok-text">Valid against the published schema.</p>`
          : html`<ul class="problems">
              ${problems.map(
                (p) => html`<li class=${p.source}>
                  ${p.line !== null ? html`<button type="button" class="link" onClick=${() => area.current && selectLine(area.current, p.line as number)}>Line ${p.line}</button>: ` : null}
                  ${p.source === 'server' ? html`<strong>Server: </strong>` : null}${p.message}
                </li>`,
              )}
            </ul>`
      }
    </div>
  </div>`;
}

/** The server's 400 as a problem at the line of the field it names. */
export function serverProblem(text: string, message: string, param: string | null): Problem {
  let parsed: Parsed | null = null;
  try {
    parsed = parseWithPositions(text);
  } catch {
    parsed = null;
  }
  return {
    line: lineOf(parsed, param),
    message: param ? `${param}: ${message.replace(`${param}: `, '')}` : message,
    source: 'server',
  };
}

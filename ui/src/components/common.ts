// Small building blocks every page uses: errors (always shown with the API's message, code and
// field), empty states that say what to do next, two-step confirmations instead of dialogs, the
// one-time secret callout, JSON views and local-time stamps.
import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { mayWriteNow } from '../access.ts';
import type { ApiError } from '../api.ts';
import { localClockAndDay, localTime, pretty } from '../format.ts';

export function ErrorBox({ error, title }: { error: ApiError | Error | undefined | null; title?: string }) {
  if (!error) return null;
  const api = error as Partial<ApiError>;
  return html`<div class="error" role="alert">
    <strong>${title ?? 'Error'}</strong>
    <span class="error-message">${error.message}</span>
    ${
      api.status || api.code || api.param
        ? html`<span class="error-meta">
            ${[
              api.status ? `HTTP ${api.status}` : null,
              api.code ? html`code <code>${api.code}</code>` : null,
              api.param ? html`field <code>${api.param}</code>` : null,
            ]
              .filter((x) => x !== null)
              .map((x, i) => html`${i > 0 ? ' · ' : ''}${x}`)}
          </span>`
        : null
    }
  </div>`;
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return html`<div class="empty">
    <p class="empty-title">${title}</p>
    ${children ? html`<div class="empty-next">${children}</div>` : null}
  </div>`;
}

export function Loading({ what }: { what?: string }) {
  return html`<p class="loading" role="status">Loading${what ? ` ${what}` : ''}…</p>`;
}

/** Shown over data that is being replaced (new filters, the next page), so it never passes as current. */
export function Updating({ when }: { when: boolean }) {
  return when ? html`<p class="loading updating" role="status">Updating…</p>` : null;
}

/** `stacked`: the time of day over the day, for narrow table columns. */
export function Time({ iso, stacked = false }: { iso: string | null | undefined; stacked?: boolean }) {
  if (!iso) return html`<span>—</span>`;
  if (stacked) {
    const [clock, day] = localClockAndDay(iso);
    return html`<time datetime=${iso} title=${`${iso} (UTC)`}>${clock} <small class="line">${day}</small></time>`;
  }
  return html`<time datetime=${iso} title=${`${iso} (UTC)`}>${localTime(iso)}</time>`;
}

/**
 * A destructive action asks once more in place, so it is keyboard-friendly and needs no dialog.
 * Focus follows the question (to "Cancel", the safe answer) and comes back when it is dismissed.
 */
export function ConfirmButton({
  label,
  confirm,
  onConfirm,
  disabled,
}: {
  label: string;
  confirm?: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const asked = useRef(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancel.current?.focus();
    else if (asked.current) trigger.current?.focus();
    asked.current = asked.current || asking;
  }, [asking]);
  // Every destructive action is a write: a read-only caller is not offered one.
  if (!mayWriteNow()) return null;
  if (!asking)
    return html`<button type="button" class="danger" ref=${trigger} disabled=${disabled} onClick=${() => setAsking(true)}>
      ${label}
    </button>`;
  return html`<span class="confirm" role="group" aria-label=${confirm ?? `${label}?`}>
    <span>${confirm ?? `${label}?`}</span>
    <button
      type="button"
      class="danger"
      onClick=${() => {
        setAsking(false);
        onConfirm();
      }}
    >
      Yes, ${label.toLowerCase()}
    </button>
    <button type="button" ref=${cancel} onClick=${() => setAsking(false)}>Cancel</button>
  </span>`;
}

export function CopyButton({ text, label }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = () => {
    navigator.clipboard?.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    ) ?? setState('failed');
  };
  return html`<button type="button" onClick=${copy}>
    ${state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select and copy' : (label ?? 'Copy')}
  </button>`;
}

/** A secret the API returns once (API key plaintext, webhook signing secret). */
export function OnceSecret({ title, value, onDone }: { title: string; value: string; onDone: () => void }) {
  return html`<div class="secret" role="status" data-testid="secret">
    <p><strong>${title}</strong> It is shown only this once: store it now.</p>
    <div class="secret-row">
      <input readonly value=${value} aria-label=${title} onFocus=${(e: FocusEvent) => (e.target as HTMLInputElement).select()} />
      <${CopyButton} text=${value} />
    </div>
    <button type="button" onClick=${onDone}>I have stored it</button>
  </div>`;
}

/** Pretty JSON; long documents start folded so a page with big bodies stays readable. */
export function JsonView({ value, label, fold = 40 }: { value: unknown; label?: string; fold?: number }) {
  const text = pretty(value);
  const lines = text.split('\n');
  const [open, setOpen] = useState(lines.length <= fold);
  return html`<div class="json">
    <pre tabindex="0" aria-label=${label ?? 'JSON'}>${open ? text : `${lines.slice(0, fold).join('\n')}\n…`}</pre>
    ${
      lines.length > fold
        ? html`<button type="button" class="link" onClick=${() => setOpen(!open)}>
            ${open ? 'Fold' : `Show all ${lines.length} lines`}
          </button>`
        : null
    }
  </div>`;
}

export function StatusBadge({ code }: { code: number }) {
  const cls = code >= 500 ? 'bad' : code >= 400 ? 'warn' : code >= 200 && code < 300 ? 'ok' : 'neutral';
  return html`<span class=${`badge ${cls}`}>${code}</span>`;
}

export function Badge({ tone, children }: { tone: 'ok' | 'warn' | 'bad' | 'neutral'; children: ComponentChildren }) {
  return html`<span class=${`badge ${tone}`}>${children}</span>`;
}

/** Cursor paging: the API pages forward only, so "previous" walks back a stack of cursors. */
export function Pager({
  hasMore,
  onNext,
  onPrev,
  onFirst,
  canPrev,
  atFirst,
}: {
  hasMore: boolean;
  onNext: () => void;
  onPrev: () => void;
  onFirst: () => void;
  canPrev: boolean;
  atFirst: boolean;
}) {
  if (!hasMore && atFirst) return null;
  return html`<nav class="pager" aria-label="Pages">
    <button type="button" onClick=${onFirst} disabled=${atFirst}>Newest</button>
    <button type="button" onClick=${onPrev} disabled=${!canPrev}>Previous</button>
    <button type="button" onClick=${onNext} disabled=${!hasMore}>Next</button>
  </nav>`;
}

export function Section({
  title,
  id,
  children,
  actions,
}: {
  title: string;
  id?: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return html`<section class="card" aria-labelledby=${id ? `${id}-title` : undefined} data-testid=${id}>
    <div class="card-head">
      <h2 id=${id ? `${id}-title` : undefined}>${title}</h2>
      ${actions ? html`<div class="card-actions">${actions}</div>` : null}
    </div>
    ${children}
  </section>`;
}

export function Stat({ label, value, hint }: { label: string; value: string; hint?: ComponentChildren }) {
  return html`<div class="stat">
    <div class="stat-label">${label}</div>
    <div class="stat-value">${value}</div>
    ${hint ? html`<div class="stat-hint">${hint}</div>` : null}
  </div>`;
}

/** For pages whose API needs an org-wide key. */
export function OrgOnly() {
  return html`<${Empty} title="This page needs an org-wide API key.">
    <p>
      You are signed in with a key scoped to one project, which the management API lets read only its own request
      logs and analytics. Use the <a href="/ui/overview">Overview</a> and <a href="/ui/logs">Logs</a> pages, or sign in
      with an org-wide key.
    </p>
  <//>`;
}

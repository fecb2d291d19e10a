// The decision trace as a waterfall: each upstream attempt is a bar placed where it ran within the
// request and as long as it took. The trace records each attempt's duration but not its start, so
// attempts are laid end to end (fallback, cascade, key retries) except for ensembles, whose
// candidates run at the same time; the request's own latency is the scale, so the gap it leaves
// is the gateway's overhead and any backoff between attempts.
import { html } from 'htm/preact';
import { ms, usd } from '../format.ts';
import type { Attempt, DecisionTrace } from '../types.ts';
import { Badge } from './common.ts';

export interface Placed {
  attempt: Attempt;
  offset: number;
}

export function placeAttempts(attempts: readonly Attempt[], parallel: boolean): Placed[] {
  let at = 0;
  return attempts.map((attempt) => {
    const offset = parallel ? 0 : at;
    at += attempt.latency_ms;
    return { attempt, offset };
  });
}

function tone(a: Attempt): 'ok' | 'warn' | 'bad' | 'neutral' {
  if (a.outcome === 'success' || (a.status >= 200 && a.status < 300)) return a.served ? 'ok' : 'neutral';
  return a.status >= 500 || a.status === 0 ? 'bad' : 'warn';
}

export function Waterfall({ trace, totalMs }: { trace: DecisionTrace | null; totalMs: number }) {
  const attempts = trace?.attempts ?? [];
  if (attempts.length === 0)
    return html`<p class="hint">No upstream attempt was made (a dry run, a cache hit, or a refusal before routing).</p>`;
  const placed = placeAttempts(attempts, trace?.policy === 'ensemble');
  const span = Math.max(totalMs, ...placed.map((p) => p.offset + p.attempt.latency_ms), 1);
  const pctOf = (v: number) => `${Math.max(0, Math.min(100, (v / span) * 100))}%`;
  return html`<p class="hint">
      ${trace?.policy === 'ensemble' ? 'Ensemble candidates run at the same time.' : 'Attempts in the order they ran.'} The rest of the
      request's time is the gateway's own work and any wait between attempts.
    </p>
    <ol class="waterfall" aria-label="Upstream attempts in order" data-testid="waterfall">
    <li class="wf-row wf-total">
      <span class="wf-label">Request (total)</span>
      <span class="wf-track"><span class="wf-bar neutral" style=${{ left: '0%', width: pctOf(totalMs) }}></span></span>
      <span class="wf-value">${ms(totalMs)}</span>
    </li>
    ${placed.map(
      ({ attempt: a, offset }, i) => html`<li class="wf-row" data-testid="attempt">
        <span class="wf-label">
          <strong>${i + 1}. ${a.provider}/${a.model}</strong>
          <span>
            <${Badge} tone=${tone(a)}>${a.status || 'no answer'}<//>
            ${a.outcome}${a.served ? html` · <strong>served</strong>` : null} · ${usd(a.cost_usd)}
          </span>
          ${a.error ? html`<small class="wf-error">${a.error}</small>` : null}
        </span>
        <span class="wf-track">
          <span class=${`wf-bar ${tone(a)}`} style=${{ left: pctOf(offset), width: pctOf(a.latency_ms) }}></span>
        </span>
        <span class="wf-value">${ms(a.latency_ms)}${a.ttfb_ms !== undefined ? html`<br /><small>first byte ${ms(a.ttfb_ms)}</small>` : null}</span>
      </li>`,
    )}
  </ol>`;
}

export function Candidates({ trace }: { trace: { candidates?: DecisionTrace['candidates'] } | null }) {
  const list = trace?.candidates ?? [];
  if (list.length === 0) return null;
  return html`<div class="table-wrap">
    <table>
      <caption class="sr-only">Candidates considered</caption>
      <thead>
        <tr><th scope="col">Candidate</th><th scope="col">Eligible</th><th scope="col">Reason</th><th scope="col" class="num">Score</th></tr>
      </thead>
      <tbody>
        ${list.map(
          (c) => html`<tr>
            <td>${c.provider}/${c.model}</td>
            <td>${c.eligible ? 'yes' : 'no'}</td>
            <td>${c.reason}</td>
            <td class="num">${c.score ?? '—'}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

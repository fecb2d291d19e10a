// A provider credential's health windows (5 minutes, 1 hour, 24 hours) as a grouped bar chart of
// latency percentiles, with each window's request count and success rate under it. SVG: three
// groups of three bars need no charting library.
import { html } from 'htm/preact';
import { int, ms, pct } from '../format.ts';
import type { HealthWindow } from '../types.ts';
import { PALETTE } from './chart.ts';

const METRICS = [
  ['p50_latency_ms', 'p50'],
  ['p95_latency_ms', 'p95'],
  ['p99_latency_ms', 'p99'],
] as const;

export function HealthChart({ windows, name }: { windows: HealthWindow[]; name: string }) {
  const max = Math.max(1, ...windows.flatMap((w) => METRICS.map(([m]) => w[m] ?? 0)));
  const W = 360;
  const H = 140;
  const groupW = W / Math.max(1, windows.length);
  const barW = Math.min(28, (groupW - 24) / METRICS.length);
  return html`<figure class="health" data-testid="health-chart">
    <figcaption>Latency percentiles per window, ${name}</figcaption>
    <svg viewBox=${`0 0 ${W} ${H + 18}`} role="img" aria-label=${`Latency percentiles of ${name} over 5 minutes, 1 hour and 24 hours`}>
      <line x1="0" y1=${H} x2=${W} y2=${H} class="axis" />
      ${windows.map((w, g) =>
        METRICS.map(([m, label], i) => {
          const v = w[m];
          const h = v === null ? 0 : Math.max(2, (v / max) * (H - 16));
          const x = g * groupW + 12 + i * barW;
          return html`<rect x=${x} y=${H - h} width=${barW - 3} height=${h} fill=${PALETTE[i]}>
            <title>${w.window} ${label}: ${ms(v)}</title>
          </rect>`;
        }),
      )}
      ${windows.map(
        (w, g) =>
          html`<text x=${g * groupW + groupW / 2} y=${H + 14} text-anchor="middle" class="svg-label">${w.window}</text>`,
      )}
    </svg>
    <p class="legend">
      ${METRICS.map(([, label], i) => html`<span><span class="swatch" style=${{ background: PALETTE[i] }}></span>${label}</span>`)}
    </p>
    <div class="table-wrap">
      <table>
        <thead>
          <tr><th scope="col">Window</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Success</th><th scope="col" class="num">p50</th><th scope="col" class="num">p95</th><th scope="col" class="num">p99</th></tr>
        </thead>
        <tbody>
          ${windows.map(
            (w) => html`<tr>
              <td>${w.window}</td>
              <td class="num">${int(w.requests)}</td>
              <td class="num">${pct(w.success_rate)}</td>
              <td class="num">${ms(w.p50_latency_ms)}</td>
              <td class="num">${ms(w.p95_latency_ms)}</td>
              <td class="num">${ms(w.p99_latency_ms)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </figure>`;
}

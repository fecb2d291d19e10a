// A time-series chart on uPlot (canvas, ~20 KB gzipped, fast at thousands of points), sized to its
// container, with the same numbers in a data table for keyboard and screen-reader users.
import { html } from 'htm/preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { localTime } from '../format.ts';
import type { Line } from '../lib/series.ts';

export const PALETTE = ['#2563eb', '#db2777', '#16a34a', '#ea580c', '#7c3aed', '#0891b2', '#ca8a04', '#64748b'];

export interface ChartProps {
  id: string;
  title: string;
  /** Unix seconds. */
  xs: number[];
  lines: Line[];
  format: (v: number) => string;
  height?: number;
  /** Dashed lines (forecast, limit) drawn after the data lines. */
  dashed?: Line[];
  /** Counts: ticks on whole numbers only. */
  integer?: boolean;
  /** Said over the chart when no line has a value other than 0: a flat line alone explains nothing. */
  empty?: string;
}

// Tick steps for counts; uPlot would otherwise label a 0..2 axis 0, 0.5, 1, ... and round them.
const WHOLE_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7,
];

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

function pointsOf(lines: Line[]): number {
  let n = 0;
  for (const l of lines) for (const v of l.values) if (v !== null) n++;
  return n;
}

function blank(lines: Line[]): boolean {
  return lines.every((l) => l.values.every((v) => v === null || v === 0));
}

// The y axis is as wide as its widest label: a fixed width cut the front off "$0.000012".
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const TICK_PX = 10;
const GAP_PX = 5;
let measurer: CanvasRenderingContext2D | null = null;

function textWidth(text: string): number {
  measurer ??= document.createElement('canvas').getContext('2d');
  if (!measurer) return text.length * 8;
  measurer.font = AXIS_FONT;
  return measurer.measureText(text).width;
}

function yAxisSize(_u: uPlot, values: string[] | null): number {
  const widest = Math.max(0, ...(values ?? []).map(textWidth));
  return Math.max(40, Math.ceil(widest) + TICK_PX + GAP_PX + 6);
}

const NONE: Line[] = [];

export function Chart({
  id,
  title,
  xs,
  lines,
  format,
  height = 220,
  dashed = NONE,
  integer = false,
  empty,
}: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [showTable, setShowTable] = useState(false);
  const all = [...lines, ...dashed];
  const isBlank = empty !== undefined && blank(lines);

  // A layout effect: the chart is drawn in the same commit as the data it shows, never a frame later.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const axis = cssVar('--fg-muted', '#667');
    const grid = cssVar('--grid', '#e5e7eb');
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      scales: { x: { time: true } },
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
      series: [
        { label: 'Time', value: (_u, v) => (v === null ? '—' : localTime(new Date(v * 1000).toISOString())) },
        ...all.map((l, i) => ({
          label: l.label,
          stroke: l.color ?? PALETTE[i % PALETTE.length],
          width: 2,
          dash: i >= lines.length ? [6, 4] : undefined,
          spanGaps: i >= lines.length,
          points: { show: xs.length < 60 },
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
        })),
      ],
      axes: [
        { stroke: axis, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
        {
          stroke: axis,
          grid: { stroke: grid, width: 1 },
          ticks: { stroke: grid, size: TICK_PX },
          gap: GAP_PX,
          font: AXIS_FONT,
          size: yAxisSize,
          incrs: integer ? WHOLE_STEPS : undefined,
          // A blank chart's scale is made up (0 to 100), so its numbers would only mislead.
          values: (_u, vals) => vals.map((v) => (isBlank ? '' : format(v))),
        },
      ],
    };
    const data = [xs, ...all.map((l) => l.values)] as uPlot.AlignedData;
    const plot = new uPlot(opts, data, el);
    // The container, not the window, decides the width: cards reflow at narrow widths.
    const ro = new ResizeObserver(() => {
      const w = Math.max(200, el.clientWidth);
      if (w !== plot.width) plot.setSize({ width: w, height });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [xs, lines, dashed, height, integer, isBlank]);

  return html`<figure class="chart" data-testid=${`chart-${id}`} data-points=${pointsOf(lines)} data-blank=${isBlank}>
    <figcaption>${title}</figcaption>
    <div class="chart-body">
      <div class="chart-canvas" ref=${box} role="img" aria-label=${`${title}: chart, data table below`}></div>
      ${isBlank ? html`<p class="chart-empty" data-testid="chart-empty">${empty}</p>` : null}
    </div>
    <details onToggle=${(e: Event) => setShowTable((e.target as HTMLDetailsElement).open)}>
      <summary>Data table</summary>
      ${
        showTable
          ? html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    ${all.map((l) => html`<th scope="col">${l.label}</th>`)}
                  </tr>
                </thead>
                <tbody>
                  ${xs.map(
                    (x, i) => html`<tr>
                      <td>${localTime(new Date(x * 1000).toISOString())}</td>
                      ${all.map((l) => html`<td class="num">${l.values[i] === null ? '—' : format(l.values[i] as number)}</td>`)}
                    </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
          : null
      }
    </details>
  </figure>`;
}

/** Horizontal bars for a handful of labelled values (top lists, health windows, histograms). */
export function Bars({
  items,
  format,
  label,
}: {
  items: Array<{ label: string; value: number | null; note?: string; href?: string }>;
  format: (v: number) => string;
  label: string;
}) {
  const max = Math.max(0, ...items.map((i) => i.value ?? 0));
  return html`<ul class="bars" aria-label=${label}>
    ${items.map(
      (item) => html`<li>
        <span class="bar-label" title=${item.label}>${item.href ? html`<a href=${item.href}>${item.label}</a>` : item.label}</span>
        <span class="bar-track" aria-hidden="true">
          <span class="bar-fill" style=${{ width: `${max > 0 && item.value ? (item.value / max) * 100 : 0}%` }}></span>
        </span>
        <span class="bar-value">${item.value === null ? '—' : format(item.value)}${item.note ? html` <small>${item.note}</small>` : null}</span>
      </li>`,
    )}
  </ul>`;
}

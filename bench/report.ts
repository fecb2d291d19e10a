// Turns a RunResult into the markdown table of BENCHMARKS.md, with each target of issue 7 judged
// from differences and ratios measured in the same run; the floor proxy's figures (issue 32) sit in
// their own column, and bench/report-floor.ts turns them into ratios. Pure.
import type { Measure, Target } from './scenarios.ts';
import type { Measurement, RunResult } from './types.ts';

export interface Row {
  scenario: string;
  metric: string;
  direct: string;
  floor: string;
  gateway: string;
  delta: string;
  peer: string;
  target: string;
  status: 'met' | 'missed' | 'n/a' | 'invalid';
}

export type Find = (scenario: string, target: Target, measure: Measure) => Measurement | undefined;

const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '-' : v.toFixed(3));
const rps = (v: number | undefined) => (v === undefined ? '-' : Math.round(v).toString());
const mb = (v: number) => (Number.isFinite(v) && v > 0 ? v.toFixed(1) : '-');
const cpu = (m: Measurement | undefined) => (m?.cpuUsPerReq === undefined ? '-' : m.cpuUsPerReq.toFixed(0));
const signed = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(3)}`;

/** A run whose failures exceed 1% of its requests measured errors, not the gateway. */
export function isValid(m: Measurement | undefined): boolean {
  return m !== undefined && m.requests > 0 && m.failures <= m.requests * 0.01;
}

function mark(m: Measurement | undefined, text: string): string {
  if (m === undefined) return '-';
  return m.failures > 0 ? `${text} (${m.failures} failed)` : text;
}

export const TITLES: Record<string, string> = {
  passthrough: '1. pass-through chat',
  'passthrough-stream': '2. pass-through stream (20 chunks)',
  translated: '3. translated alpha->anthropic',
  'translated-stream': '3. translated alpha->anthropic stream',
  'beta-to-openai-stream': '4. translated beta->openai stream',
  embeddings: '5. embeddings pass-through',
};

/** Added-latency budget at c=1 per scenario (ms), from issue 7. */
const LATENCY_TARGET: Record<string, number> = { passthrough: 0.2, translated: 0.5, embeddings: 0.2 };
const TTFB_TARGET_MS = 1;
const RPS_SHARE_TARGET = 0.4;
const PEER_RPS_FACTOR = 10;
const RSS_PEAK_TARGET_MB = 150;
const RSS_IDLE_TARGET_MB = 100;
const RSS_FLAT_SHARE = 0.1;

/** `coarse`: the c=1 latencies came from autocannon, whose histogram counts whole milliseconds. */
function latencyRows(id: string, find: Find, measure: 'c1' | 'ttfb', coarse: boolean): Row[] {
  const d = find(id, 'direct', measure);
  const g = find(id, 'gateway', measure);
  const p = find(id, 'peer', measure);
  const f = find(id, 'floor', measure);
  const valid = isValid(d) && isValid(g);
  const budget = measure === 'ttfb' ? TTFB_TARGET_MS : LATENCY_TARGET[id];
  const added = valid && d && g ? g.p50Ms - d.p50Ms : Number.NaN;
  const label = measure === 'ttfb' ? 'TTFB' : 'latency';
  // TTFB comes from bench/ttfb.ts (sub-millisecond) whatever the load generator
  const judgeable = measure === 'ttfb' || !coarse;
  const overDirect = (x: Measurement | undefined, pick: (x: Measurement) => number) =>
    x && d ? mark(x, `${ms(pick(x))} (${signed(pick(x) - pick(d))})`) : '-';
  return [
    {
      scenario: TITLES[id] ?? id,
      metric: `${label} p50 @c=1, ms`,
      direct: mark(d, ms(d?.p50Ms)),
      floor: overDirect(f, (x) => x.p50Ms),
      gateway: mark(g, ms(g?.p50Ms)),
      delta: valid ? `${signed(added)} ms` : '-',
      peer: overDirect(p, (x) => x.p50Ms),
      target: budget === undefined ? '-' : `added <= ${budget} ms${judgeable ? '' : ' (not judged: 1 ms resolution)'}`,
      status: !valid ? 'invalid' : budget === undefined || !judgeable ? 'n/a' : added <= budget ? 'met' : 'missed',
    },
    {
      scenario: TITLES[id] ?? id,
      metric: `${label} p99 @c=1, ms`,
      direct: ms(d?.p99Ms),
      floor: overDirect(f, (x) => x.p99Ms),
      gateway: ms(g?.p99Ms),
      delta: valid && d && g ? `${signed(g.p99Ms - d.p99Ms)} ms` : '-',
      peer: overDirect(p, (x) => x.p99Ms),
      target: '-',
      status: valid ? 'n/a' : 'invalid',
    },
  ];
}

function throughputRows(id: string, find: Find): Row[] {
  const d = find(id, 'direct', 'c32');
  const g = find(id, 'gateway', 'c32');
  const p = find(id, 'peer', 'c32');
  const f = find(id, 'floor', 'c32');
  const valid = isValid(d) && isValid(g);
  const ofDirect = (x: Measurement | undefined) =>
    x ? mark(x, `${rps(x.rps)}${d ? ` (${((x.rps / d.rps) * 100).toFixed(0)}%)` : ''}`) : '-';
  const share = valid && d && g ? g.rps / d.rps : Number.NaN;
  const peerValid = isValid(p);
  const overPeer = peerValid && g && p ? g.rps / p.rps : Number.NaN;
  const shareMet = share >= RPS_SHARE_TARGET;
  const peerMet = !p || (peerValid && overPeer >= PEER_RPS_FACTOR);
  const target = p ? `>= 40% of direct, >= 10x peer` : '>= 40% of direct';
  return [
    {
      scenario: TITLES[id] ?? id,
      metric: 'RPS @c=32',
      direct: mark(d, rps(d?.rps)),
      floor: ofDirect(f),
      gateway: mark(g, rps(g?.rps)),
      delta: valid
        ? `${(share * 100).toFixed(0)}% of direct${p && peerValid ? `, ${overPeer.toFixed(1)}x peer` : ''}`
        : '-',
      peer: ofDirect(p),
      target,
      status: !valid ? 'invalid' : shareMet && peerMet ? 'met' : 'missed',
    },
    {
      scenario: TITLES[id] ?? id,
      metric: 'CPU per request @c=32, us',
      direct: cpu(d),
      floor: f ? cpu(f) : '-',
      gateway: cpu(g),
      delta:
        g?.cpuUsPerReq !== undefined && p?.cpuUsPerReq !== undefined
          ? `${(p.cpuUsPerReq / g.cpuUsPerReq).toFixed(1)}x less than peer`
          : '-',
      peer: p ? cpu(p) : '-',
      target: '-',
      status: 'n/a',
    },
    {
      scenario: TITLES[id] ?? id,
      metric: 'p50 / p99 @c=32, ms',
      direct: d ? `${ms(d.p50Ms)} / ${ms(d.p99Ms)}` : '-',
      floor: f ? `${ms(f.p50Ms)} / ${ms(f.p99Ms)}` : '-',
      gateway: g ? `${ms(g.p50Ms)} / ${ms(g.p99Ms)}` : '-',
      delta: valid && d && g ? `${signed(g.p50Ms - d.p50Ms)} / ${signed(g.p99Ms - d.p99Ms)}` : '-',
      peer: p ? `${ms(p.p50Ms)} / ${ms(p.p99Ms)}` : '-',
      target: '-',
      status: valid ? 'n/a' : 'invalid',
    },
  ];
}

function rssRows(r: RunResult): Row[] {
  const g = r.rss.gateway;
  const change = g.soakStartFloorMb > 0 ? (g.soakEndFloorMb - g.soakStartFloorMb) / g.soakStartFloorMb : Number.NaN;
  const pct = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;
  const scenario = '6. gateway RSS';
  return [
    {
      scenario,
      metric: 'just started (1.5 s), MB',
      direct: '-',
      floor: '-',
      gateway: mb(g.idleMb),
      delta: '-',
      peer: '-',
      target: '-',
      status: 'n/a',
    },
    {
      scenario,
      metric: 'idle: at rest after the soak, MB',
      direct: '-',
      floor: '-',
      gateway: g.restMb === undefined ? '-' : mb(g.restMb),
      delta: '-',
      peer: '-',
      target: `< ${RSS_IDLE_TARGET_MB} MB`,
      status: g.restMb === undefined ? 'n/a' : g.restMb < RSS_IDLE_TARGET_MB ? 'met' : 'missed',
    },
    {
      scenario,
      metric: 'peak under c=32, MB',
      direct: '-',
      floor: '-',
      gateway: mb(g.peakC32Mb),
      delta: '-',
      peer: r.rss.peerPeakC32Mb === null ? '-' : mb(r.rss.peerPeakC32Mb),
      target: `<= ${RSS_PEAK_TARGET_MB} MB`,
      status: g.peakC32Mb > 0 ? (g.peakC32Mb <= RSS_PEAK_TARGET_MB ? 'met' : 'missed') : 'invalid',
    },
    {
      scenario,
      metric: `${g.soakSec} s streaming soak @c=32: floor after GC, first -> last third, MB`,
      direct: '-',
      floor: '-',
      gateway: `${mb(g.soakStartFloorMb)} -> ${mb(g.soakEndFloorMb)}${g.soakFailures > 0 ? ` (${g.soakFailures} failed)` : ''}`,
      delta: Number.isNaN(change) ? '-' : `${pct(change)} (${g.soakRequests} streams)`,
      peer: '-',
      target: 'flat, +-10%',
      status: Number.isNaN(change) ? 'invalid' : Math.abs(change) <= RSS_FLAT_SHARE ? 'met' : 'missed',
    },
    {
      scenario,
      metric: `${g.soakSec} s streaming soak: median of first -> last 5 s, MB`,
      direct: '-',
      floor: '-',
      gateway: `${mb(g.soakStartMb)} -> ${mb(g.soakEndMb)}`,
      delta: g.soakStartMb > 0 ? pct((g.soakEndMb - g.soakStartMb) / g.soakStartMb) : '-',
      peer: '-',
      target: '-',
      status: 'n/a',
    },
  ];
}

export function finder(r: RunResult): Find {
  return (scenario, target, measure) =>
    r.measurements.find((m) => m.scenario === scenario && m.target === target && m.measure === measure);
}

export function buildRows(r: RunResult, order: Array<{ id: string; measures: Measure[] }>): Row[] {
  const find = finder(r);
  const rows: Row[] = [];
  for (const s of order) {
    for (const m of s.measures) {
      if (m === 'c32') rows.push(...throughputRows(s.id, find));
      else rows.push(...latencyRows(s.id, find, m, r.machine.loadgen === 'autocannon'));
    }
  }
  rows.push(...rssRows(r));
  return rows;
}

/** The floor column appears when the run had the floor (bench/floor-proxy.ts). */
export function renderTable(rows: Row[], peerName: string | null): string {
  const withFloor = rows.some((r) => r.floor !== '-');
  const cells = (r: Row) => [
    r.scenario,
    r.metric,
    r.direct,
    ...(withFloor ? [r.floor] : []),
    r.gateway,
    r.delta,
    r.peer,
    r.target,
    r.status,
  ];
  const head = ['scenario', 'metric', 'direct', ...(withFloor ? ['floor'] : []), 'switchyard'];
  head.push('added / ratio', peerName ?? 'peer', 'target', 'status');
  return markdown(head, rows.map(cells));
}

export function markdown(head: string[], body: string[][]): string {
  const esc = (s: string) => s.replaceAll('|', '\\|');
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const cells of body) lines.push(`| ${cells.map(esc).join(' | ')} |`);
  return lines.join('\n');
}

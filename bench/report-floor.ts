// Switchyard against the floor (issue 32): per scenario, RPS as a share of the floor's, latency added
// over direct as a multiple of what the floor adds, and CPU per request of each, with the goals of
// issue 32 judged. Only ratios within one run mean anything on a shared machine. Pure.
import { finder, isValid, markdown, TITLES } from './report.ts';
import type { Measure } from './scenarios.ts';
import type { Measurement, RunResult } from './types.ts';

export interface FloorRow {
  scenario: string;
  metric: string;
  floor: string;
  gateway: string;
  ratio: string;
  goal: string;
  status: 'met' | 'missed' | 'n/a' | 'invalid';
}

/** Issue 32's goals: RPS at c=32 as a share of the floor's. */
const RPS_GOAL: Record<string, number> = {
  passthrough: 0.5,
  'passthrough-stream': 0.7,
  translated: 0.4,
  'translated-stream': 0.4,
};
/** Latency added over direct at c=1, as a multiple of the floor's; TTFB has no goal. */
const ADDED_GOAL: Record<string, number> = { passthrough: 2, 'passthrough-stream': 2 };
/** The gateway's CPU per pass-through request, an absolute figure rather than a ratio. */
const CPU_GOAL_US: Record<string, number> = { passthrough: 120 };

const us = (v: number) => `${v >= 0 ? '+' : ''}${Math.round(v * 1000)} us`;

function verdict(valid: boolean, goal: number | undefined, met: boolean): FloorRow['status'] {
  if (!valid) return 'invalid';
  return goal === undefined ? 'n/a' : met ? 'met' : 'missed';
}

function rpsRow(title: string, id: string, f: Measurement | undefined, g: Measurement | undefined): FloorRow {
  const valid = isValid(f) && isValid(g) && f !== undefined && f.rps > 0;
  const share = valid && f && g ? g.rps / f.rps : Number.NaN;
  const goal = RPS_GOAL[id];
  return {
    scenario: title,
    metric: 'RPS @c=32',
    floor: f ? Math.round(f.rps).toString() : '-',
    gateway: g ? Math.round(g.rps).toString() : '-',
    ratio: valid ? `${(share * 100).toFixed(0)}% of floor` : '-',
    goal: goal === undefined ? '-' : `>= ${goal * 100}%`,
    status: verdict(valid, goal, share >= (goal ?? 0)),
  };
}

function cpuRow(title: string, id: string, f: Measurement | undefined, g: Measurement | undefined): FloorRow {
  const fc = f?.cpuUsPerReq;
  const gc = g?.cpuUsPerReq;
  const goal = CPU_GOAL_US[id];
  const known = fc !== undefined && gc !== undefined && fc > 0;
  return {
    scenario: title,
    metric: 'CPU per request @c=32, us',
    floor: fc === undefined ? '-' : fc.toFixed(0),
    gateway: gc === undefined ? '-' : gc.toFixed(0),
    ratio: known ? `${(gc / fc).toFixed(1)}x floor` : '-',
    goal: goal === undefined ? '-' : `switchyard <= ${goal} us`,
    status: verdict(gc !== undefined && isValid(g), goal, gc !== undefined && gc <= (goal ?? 0)),
  };
}

/** `coarse`: autocannon's whole-millisecond latencies, too rough for a multiple of tens of microseconds. */
function addedRow(
  title: string,
  id: string,
  measure: 'c1' | 'ttfb',
  ms: { d?: Measurement; f?: Measurement; g?: Measurement },
  coarse: boolean,
): FloorRow {
  const { d, f, g } = ms;
  const valid = isValid(d) && isValid(f) && isValid(g);
  const fAdded = valid && d && f ? f.p50Ms - d.p50Ms : Number.NaN;
  const gAdded = valid && d && g ? g.p50Ms - d.p50Ms : Number.NaN;
  // a floor that adds nothing measurable (noise put it at or under direct) gives no multiple
  const multiple = fAdded > 0 ? gAdded / fAdded : Number.NaN;
  const goal = measure === 'c1' ? ADDED_GOAL[id] : undefined;
  const judgeable = measure === 'ttfb' || !coarse;
  let ratio = '-';
  if (valid) ratio = Number.isNaN(multiple) ? 'floor adds <= 0' : `${multiple.toFixed(1)}x floor's`;
  return {
    scenario: title,
    metric: measure === 'c1' ? 'added p50 @c=1 over direct' : 'added TTFB p50 @c=1 over direct',
    floor: valid ? us(fAdded) : '-',
    gateway: valid ? us(gAdded) : '-',
    ratio,
    goal: goal === undefined ? '-' : `<= ${goal}x${judgeable ? '' : ' (not judged: 1 ms resolution)'}`,
    // without a multiple (the floor added nothing measurable) there is nothing to judge
    status: !valid
      ? 'invalid'
      : judgeable && !Number.isNaN(multiple)
        ? verdict(true, goal, multiple <= (goal ?? 0))
        : 'n/a',
  };
}

export function buildFloorRows(r: RunResult, order: Array<{ id: string; measures: Measure[] }>): FloorRow[] {
  const find = finder(r);
  const coarse = r.machine.loadgen === 'autocannon';
  const rows: FloorRow[] = [];
  for (const s of order) {
    const title = TITLES[s.id] ?? s.id;
    if (!r.measurements.some((m) => m.scenario === s.id && m.target === 'floor')) continue;
    for (const m of s.measures) {
      const at = (t: 'direct' | 'floor' | 'gateway') => find(s.id, t, m);
      if (m === 'c32') rows.push(rpsRow(title, s.id, at('floor'), at('gateway')));
      else rows.push(addedRow(title, s.id, m, { d: at('direct'), f: at('floor'), g: at('gateway') }, coarse));
    }
    const c32 = s.measures.includes('c32');
    if (c32) rows.push(cpuRow(title, s.id, find(s.id, 'floor', 'c32'), find(s.id, 'gateway', 'c32')));
  }
  return rows;
}

export function renderFloorTable(rows: FloorRow[]): string {
  const head = ['scenario', 'metric', 'floor', 'switchyard', 'switchyard / floor', 'goal (issue 32)', 'status'];
  return markdown(
    head,
    rows.map((r) => [r.scenario, r.metric, r.floor, r.gateway, r.ratio, r.goal, r.status]),
  );
}

// GET /manage/v1/analytics/report, computed from the rollups (src/store/rollups*.ts), never from
// request_logs. Rollups resolve hours, so the window is widened to whole hours (the answer echoes
// the window it used). Day buckets are UTC days: whole days read the daily rows, the partial days
// at either edge the hourly ones.
//
// Where the numbers come from (the three rollup tables are described in rollups-read.ts):
// - no tags filter, grouped by nothing, model, provider or project: `rollups`;
// - a tags filter (rows without tags cannot match): `users` when grouped by end user, else `tags`;
// - grouped by end user or a tag key without a tags filter: `users` / `tags` give the named
//   groups, and the group `null` (rows without an end user / that tag) is `rollups` minus them.
//   Counts and histogram bins are plain sums, so the subtraction is exact.
//
// Which calls count: by default the inference calls (INFERENCE_REQUEST_TYPES), so that polling a
// batch or listing files does not read as traffic; `requestTypes` picks others. Every read filters
// on the rollups' request_type, so the subtraction above stays within the same types.

import { DAY, HOUR } from '../store/rollups.ts';
import { addHist, histogramPercentiles } from '../store/rollups-histogram.ts';
import type { AnalyticsStore, RollupCell, RollupDim, RollupQuery, RollupTableName } from '../store/rollups-read.ts';
import { KEY_METADATA_TAG } from '../util/key-metadata.ts';
import { type RequestTypeFilter, typesToRead, UNTYPED } from './report-request-types.ts';

export type Granularity = 'hour' | 'day';
export type GroupBy =
  | { kind: 'model' | 'provider' | 'project' | 'end_user' | 'request_type' }
  | { kind: 'tag'; key: string };

export interface ReportRequest {
  orgId: string;
  projectId?: string;
  /** Unix milliseconds. */
  start: number;
  end: number;
  granularity: Granularity;
  groupBy: GroupBy | null;
  /** Rows must carry every pair. */
  tags: Record<string, string> | null;
  /** Default: INFERENCE. */
  requestTypes?: RequestTypeFilter;
  includeComparison: boolean;
}

export interface ReportPoint {
  bucket: string;
  group?: string | null;
  requests: number;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  errors: number;
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
  p99_latency_ms: number | null;
}

export interface ReportTotals {
  requests: number;
  cost_usd: number;
  error_rate: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
  p99_latency_ms: number | null;
}

export interface ReportPeriod {
  start: string;
  end: string;
  series: ReportPoint[];
  totals: ReportTotals;
}

export interface Report extends ReportPeriod {
  granularity: Granularity;
  group_by: string | null;
  /** The request types counted; null = every type. */
  request_types: string[] | null;
  comparison?: ReportPeriod;
}

/** The window in Unix seconds, widened to whole hours. */
export function reportWindow(startMs: number, endMs: number): { from: number; to: number } {
  return { from: Math.floor(startMs / 1000 / HOUR) * HOUR, to: Math.ceil(endMs / 1000 / HOUR) * HOUR };
}

const stepOf = (g: Granularity) => (g === 'hour' ? HOUR : DAY);

/** How many buckets a report over [startMs, endMs) has. */
export function bucketCount(startMs: number, endMs: number, granularity: Granularity): number {
  const { from, to } = reportWindow(startMs, endMs);
  const step = stepOf(granularity);
  return Math.ceil(to / step) - Math.floor(from / step);
}

/** Which rollup rows cover [from, to): daily rows for whole days when buckets are days. */
function ranges(from: number, to: number, granularity: Granularity): { grain: number; from: number; to: number }[] {
  if (granularity === 'hour') return [{ grain: HOUR, from, to }];
  const firstDay = Math.ceil(from / DAY) * DAY;
  const lastDay = Math.floor(to / DAY) * DAY;
  if (firstDay >= lastDay) return [{ grain: HOUR, from, to }];
  const out = [{ grain: DAY, from: firstDay, to: lastDay }];
  if (from < firstDay) out.push({ grain: HOUR, from, to: firstDay });
  if (lastDay < to) out.push({ grain: HOUR, from: lastDay, to });
  return out;
}

const GROUP_COLUMN: Record<GroupBy['kind'], RollupDim> = {
  model: 'model',
  provider: 'provider',
  project: 'project_id',
  end_user: 'end_user',
  request_type: 'request_type',
  tag: 'tagset',
};

interface Acc {
  bucket: number;
  group: string | null;
  requests: number;
  errors: number;
  cost: number;
  input: number;
  output: number;
  hist: Map<number, number>;
}

/** One read of the rollups: which rows, and how a row's dims become a group (undefined = skip). */
interface Source {
  table: RollupTableName;
  dims: RollupDim[];
  groupOf(dims: string[]): string | null | undefined;
  /** Also add the row, negated, to the group null (see the header). */
  subtractFromNull: boolean;
}

function tagsetParser(): (tagset: string) => Record<string, string> | null {
  const cache = new Map<string, Record<string, string> | null>();
  return (tagset) => {
    let v = cache.get(tagset);
    if (v === undefined) {
      try {
        v = tagset === '' || tagset === 'other' ? null : (JSON.parse(tagset) as Record<string, string>);
      } catch {
        v = null;
      }
      cache.set(tagset, v);
    }
    return v;
  };
}

function sources(req: ReportRequest): Source[] {
  const g = req.groupBy;
  const parse = tagsetParser();
  const noneAsNull = (v: string | undefined) => (v === undefined || v === '' ? null : v);
  const tagValue = (tagset: string, key: string) => (tagset === 'other' ? 'other' : (parse(tagset)?.[key] ?? null));
  const filter = req.tags !== null && Object.keys(req.tags).length > 0 ? req.tags : null;
  if (filter) {
    const matches = (tagset: string) => {
      const tags = parse(tagset);
      return tags !== null && Object.entries(filter).every(([k, v]) => tags[k] === v);
    };
    if (g?.kind === 'end_user') {
      // Matching rows without an end user are only in `tags`: all matching rows less `users`.
      return [
        {
          table: 'tags',
          dims: ['tagset'],
          subtractFromNull: false,
          groupOf: (d) => (matches(d[0] ?? '') ? null : undefined),
        },
        {
          table: 'users',
          dims: ['end_user', 'tagset'],
          subtractFromNull: true,
          groupOf: (d) => (matches(d[1] ?? '') ? noneAsNull(d[0]) : undefined),
        },
      ];
    }
    const dims: RollupDim[] = g && g.kind !== 'tag' ? [GROUP_COLUMN[g.kind], 'tagset'] : ['tagset'];
    const tagsetAt = dims.length - 1;
    return [
      {
        table: 'tags',
        dims,
        subtractFromNull: false,
        groupOf: (d) => {
          const tagset = d[tagsetAt] ?? '';
          if (!matches(tagset)) return undefined;
          if (!g) return null;
          return g.kind === 'tag' ? tagValue(tagset, g.key) : noneAsNull(d[0]);
        },
      },
    ];
  }
  if (g && (g.kind === 'end_user' || g.kind === 'tag')) {
    return [
      { table: 'rollups', dims: [], subtractFromNull: false, groupOf: () => null },
      {
        table: g.kind === 'end_user' ? 'users' : 'tags',
        dims: [GROUP_COLUMN[g.kind]],
        subtractFromNull: true,
        groupOf: (d) => {
          const v = g.kind === 'tag' ? tagValue(d[0] ?? '', g.key) : noneAsNull(d[0]);
          return v === null ? undefined : v;
        },
      },
    ];
  }
  return [
    {
      table: 'rollups',
      dims: g ? [GROUP_COLUMN[g.kind]] : [],
      subtractFromNull: false,
      groupOf: (d) => (g ? noneAsNull(d[0]) : null),
    },
  ];
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const PERCENTILES = [50, 95, 99] as const;

async function period(
  store: AnalyticsStore,
  req: ReportRequest,
  from: number,
  to: number,
  grouped: boolean,
): Promise<ReportPeriod> {
  const step = stepOf(req.granularity);
  const accs = new Map<string, Acc>();
  const accOf = (bucket: number, group: string | null): Acc => {
    const k = `${bucket}\n${group === null ? '\u0000' : group}`;
    let a = accs.get(k);
    if (!a) {
      a = { bucket, group, requests: 0, errors: 0, cost: 0, input: 0, output: 0, hist: new Map() };
      accs.set(k, a);
    }
    return a;
  };
  const add = (a: Acc, c: RollupCell, sign: number) => {
    a.requests += sign * c.requests;
    a.errors += sign * c.errors;
    a.cost += sign * c.costUsd;
    a.input += sign * c.inputTokens;
    a.output += sign * c.outputTokens;
    addHist(a.hist, c.hist, sign);
  };

  const reads = ranges(from, to, req.granularity).flatMap((r) =>
    sources(req).map(async (s) => {
      const q: RollupQuery = {
        orgId: req.orgId,
        projectId: req.projectId,
        ...r,
        dims: s.dims,
        table: s.table,
        requestTypes: typesToRead(req.requestTypes),
      };
      return { s, cells: await store.cells(q) };
    }),
  );
  for (const { s, cells } of await Promise.all(reads)) {
    for (const c of cells) {
      const group = s.groupOf(c.dims);
      if (group === undefined) continue;
      const bucket = Math.floor(c.period / step) * step;
      add(accOf(bucket, group), c, 1);
      if (s.subtractFromNull) add(accOf(bucket, null), c, -1);
    }
  }

  const totals = { requests: 0, errors: 0, cost: 0, input: 0, output: 0, hist: new Map<number, number>() };
  for (const a of accs.values()) {
    totals.requests += a.requests;
    totals.errors += a.errors;
    totals.cost += a.cost;
    totals.input += a.input;
    totals.output += a.output;
    for (const [bin, n] of a.hist) totals.hist.set(bin, (totals.hist.get(bin) ?? 0) + n);
  }
  const point = (a: Acc): ReportPoint => {
    const [p50, p95, p99] = histogramPercentiles(a.hist, PERCENTILES);
    return {
      bucket: iso(a.bucket),
      ...(grouped ? { group: a.group } : {}),
      requests: a.requests,
      cost_usd: round(a.cost, 9),
      input_tokens: a.input,
      output_tokens: a.output,
      errors: a.errors,
      p50_latency_ms: p50 ?? null,
      p95_latency_ms: p95 ?? null,
      p99_latency_ms: p99 ?? null,
    };
  };
  let series: ReportPoint[];
  if (grouped) {
    series = [...accs.values()]
      .filter((a) => a.requests > 0)
      .sort((a, b) => a.bucket - b.bucket || compareGroups(a.group, b.group))
      .map(point);
  } else {
    // Ungrouped series are dense: a chart needs the empty buckets too.
    series = [];
    for (let b = Math.floor(from / step) * step; b < to; b += step) series.push(point(accOf(b, null)));
  }
  const [p50, p95, p99] = histogramPercentiles(totals.hist, PERCENTILES);
  return {
    start: iso(from),
    end: iso(to),
    series,
    totals: {
      requests: totals.requests,
      cost_usd: round(totals.cost, 9),
      error_rate: totals.requests > 0 ? round(totals.errors / totals.requests, 6) : 0,
      errors: totals.errors,
      input_tokens: totals.input,
      output_tokens: totals.output,
      p50_latency_ms: p50 ?? null,
      p95_latency_ms: p95 ?? null,
      p99_latency_ms: p99 ?? null,
    },
  };
}

/** Named groups in order, the group null (no value) last. */
function compareGroups(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

export function groupByLabel(g: GroupBy | null): string | null {
  if (!g) return null;
  if (g.kind !== 'tag') return g.kind;
  // Key metadata rides among the tags under its own prefix, and is named as it was asked for.
  return g.key.startsWith(KEY_METADATA_TAG) ? g.key : `tag:${g.key}`;
}

export async function analyticsReport(store: AnalyticsStore, req: ReportRequest): Promise<Report> {
  const { from, to } = reportWindow(req.start, req.end);
  const grouped = req.groupBy !== null;
  const current = period(store, req, from, to, grouped);
  const previous = req.includeComparison ? period(store, req, from - (to - from), from, grouped) : undefined;
  const types = typesToRead(req.requestTypes);
  const report: Report = {
    granularity: req.granularity,
    group_by: groupByLabel(req.groupBy),
    request_types: types === undefined ? null : types.filter((t) => t !== UNTYPED),
    ...(await current),
  };
  if (previous) report.comparison = await previous;
  return report;
}

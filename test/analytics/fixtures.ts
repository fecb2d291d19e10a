// Request-log rows for the analytics tests, and the report computed the slow, exact way straight
// from those rows: what the rollups must agree with (percentiles within the histogram's 2%).
import assert from 'node:assert/strict';
import type { Granularity, GroupBy, Report, ReportPoint } from '../../src/logs/analytics-report.ts';
import { INFERENCE_REQUEST_TYPES, type RequestTypeFilter } from '../../src/logs/report-request-types.ts';
import type { RequestLogRow } from '../../src/store/request-logs.ts';
import { logRow as baseRow } from '../helpers/log-row.ts';

/** A deterministic generator, so a failure reproduces. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export const T0 = Date.UTC(2025, 0, 10);
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

let seq = 0;

export function logRow(over: Partial<RequestLogRow>): RequestLogRow {
  seq++;
  return baseRow({
    id: `req_fx${String(seq).padStart(8, '0')}${Math.random().toString(36).slice(2, 8)}`,
    requestType: 'chat_completion',
    projectId: 'proj_1',
    modelRequested: 'gpt-4o',
    modelUsed: 'gpt-4o',
    latencyMs: 100,
    inputTokens: 10,
    outputTokens: 5,
    costUsd: 0.001,
    createdAt: new Date(T0).toISOString(),
    ...over,
  });
}

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;

/** `n` varied rows over about 60 hours from T0 (and a few in the 24 hours before, for comparisons). */
export function variedRows(n: number, seed = 7): RequestLogRow[] {
  const rnd = random(seed);
  const models = [
    ['gpt-4o', 'openai'],
    ['claude-x', 'anthropic'],
    ['gemini-y', 'google'],
    [null, null],
  ] as const;
  // Mostly inference, with the polls and listings a default report leaves out.
  const types = [
    ...['chat_completion', 'chat_completion', 'chat_completion', 'message', 'embedding', 'batch_execution'],
    ...['batch_retrieve', 'file_list', 'response_retrieve'],
  ];
  const rows: RequestLogRow[] = [];
  for (let i = 0; i < n; i++) {
    const [model, provider] = pick(rnd, models);
    const requestType = pick(rnd, types);
    const r = rnd();
    const latency = r < 0.03 ? 0 : r < 0.06 ? 1 : r < 0.08 ? 30_000 + Math.floor(rnd() * 5000) : Math.exp(rnd() * 7);
    rows.push(
      logRow({
        requestType,
        orgId: rnd() < 0.9 ? 'org_a' : 'org_b',
        projectId: pick(rnd, ['proj_1', 'proj_2', null]),
        modelRequested: model,
        modelUsed: model,
        provider,
        statusCode: pick(rnd, [200, 200, 200, 200, 201, 400, 429, 500]),
        latencyMs: Math.round(latency * 100) / 100,
        inputTokens: Math.floor(rnd() * 1000),
        outputTokens: Math.floor(rnd() * 500),
        costUsd: rnd() < 0.1 ? null : Math.round(rnd() * 1e6) / 1e9,
        endUser: pick(rnd, [null, null, 'u1', 'u2', 'u3']),
        tags: pick<Record<string, string> | null>(rnd, [
          null,
          null,
          { team: 'a' },
          { team: 'b' },
          { team: 'a', env: 'prod' },
          { env: 'dev' },
        ]),
        createdAt: new Date(T0 - DAY_MS + Math.floor(rnd() * 84 * HOUR_MS)).toISOString(),
      }),
    );
  }
  return rows;
}

export interface ExactQuery {
  orgId: string;
  projectId?: string;
  start: number;
  end: number;
  granularity: Granularity;
  groupBy: GroupBy | null;
  tags: Record<string, string> | null;
  /** As ReportRequest.requestTypes: default the inference types. */
  requestTypes?: RequestTypeFilter;
}

/** Whether a report asked for `filter` counts rows of `type` (written out here, not shared with src). */
export function counts(filter: RequestTypeFilter | undefined, type: string): boolean {
  if (filter === 'all') return true;
  const names = filter ?? ['inference'];
  return names.includes(type) || (names.includes('inference') && INFERENCE_REQUEST_TYPES.includes(type));
}

function groupValue(r: RequestLogRow, g: GroupBy): string | null {
  let v: string | null;
  if (g.kind === 'tag') v = r.tags?.[g.key] ?? null;
  else if (g.kind === 'model') v = r.modelUsed ?? r.modelRequested;
  else if (g.kind === 'provider') v = r.provider;
  else if (g.kind === 'project') v = r.projectId;
  else if (g.kind === 'request_type') v = r.requestType;
  else v = r.endUser;
  return v === '' ? null : v;
}

function nearestRank(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(1, Math.ceil((p * sorted.length) / 100)) - 1] ?? null;
}

export interface ExactPoint {
  bucket: string;
  group: string | null;
  requests: number;
  errors: number;
  cost: number;
  input: number;
  output: number;
  latencies: number[];
}

/** The points with requests, keyed by bucket and group. */
export function exactSeries(rows: RequestLogRow[], q: ExactQuery): Map<string, ExactPoint> {
  const from = Math.floor(q.start / HOUR_MS) * HOUR_MS;
  const to = Math.ceil(q.end / HOUR_MS) * HOUR_MS;
  const step = q.granularity === 'hour' ? HOUR_MS : DAY_MS;
  const out = new Map<string, ExactPoint>();
  for (const r of rows) {
    const t = Date.parse(r.createdAt);
    if (r.orgId !== q.orgId || t < from || t >= to) continue;
    if (q.projectId !== undefined && r.projectId !== q.projectId) continue;
    if (!counts(q.requestTypes, r.requestType)) continue;
    if (q.tags && !Object.entries(q.tags).every(([k, v]) => r.tags?.[k] === v)) continue;
    const bucket = new Date(Math.floor(t / step) * step).toISOString();
    const group = q.groupBy ? groupValue(r, q.groupBy) : null;
    const k = `${bucket}|${group}`;
    const p = out.get(k) ?? { bucket, group, requests: 0, errors: 0, cost: 0, input: 0, output: 0, latencies: [] };
    out.set(k, p);
    p.requests++;
    p.errors += r.statusCode >= 400 ? 1 : 0;
    p.cost += r.costUsd ?? 0;
    p.input += r.inputTokens;
    p.output += r.outputTokens;
    p.latencies.push(Math.round(r.latencyMs));
  }
  return out;
}

/** Within the stated 2% of the exact nearest-rank value. */
export function assertPercentile(got: number | null, exact: number | null, what: string): void {
  if (exact === null) {
    assert.equal(got, null, what);
    return;
  }
  assert.ok(got !== null, `${what}: null, expected about ${exact}`);
  assert.ok(Math.abs(got - exact) <= exact * 0.02, `${what}: ${got} is not within 2% of ${exact}`);
}

/** The report's series equals the exact computation (the histogram's percentiles within 2%). */
export function assertMatchesExact(report: Report, rows: RequestLogRow[], q: ExactQuery, label: string): void {
  const exact = exactSeries(rows, q);
  const points = report.series.filter((p) => p.requests > 0);
  const key = (p: ReportPoint) => `${p.bucket}|${q.groupBy ? p.group : null}`;
  assert.deepEqual(points.map(key).sort(), [...exact.keys()].sort(), `${label}: buckets and groups`);
  let total = 0;
  for (const p of points) {
    const e = exact.get(key(p)) as ExactPoint;
    const what = `${label} ${key(p)}`;
    assert.equal(p.requests, e.requests, `${what} requests`);
    assert.equal(p.errors, e.errors, `${what} errors`);
    assert.equal(p.input_tokens, e.input, `${what} input_tokens`);
    assert.equal(p.output_tokens, e.output, `${what} output_tokens`);
    assert.ok(Math.abs(p.cost_usd - e.cost) < 1e-8, `${what} cost ${p.cost_usd} vs ${e.cost}`);
    const sorted = e.latencies.sort((a, b) => a - b);
    assertPercentile(p.p50_latency_ms, nearestRank(sorted, 50), `${what} p50`);
    assertPercentile(p.p95_latency_ms, nearestRank(sorted, 95), `${what} p95`);
    assertPercentile(p.p99_latency_ms, nearestRank(sorted, 99), `${what} p99`);
    total += e.requests;
  }
  assert.equal(report.totals.requests, total, `${label}: totals.requests`);
  const all = [...exact.values()].flatMap((e) => e.latencies).sort((a, b) => a - b);
  assertPercentile(report.totals.p95_latency_ms, nearestRank(all, 95), `${label}: totals p95`);
}

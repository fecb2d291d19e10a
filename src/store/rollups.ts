// What a batch of newly inserted request-log rows adds to the analytics rollups. Pure: the two
// writers (rollups-sqlite.ts in the log worker, rollups-write.ts through the query builder) feed
// it only rows their INSERT actually stored, in the same transaction, so a row replayed from the
// journal is never counted twice. No runtime import of the query builder here: the SQLite log
// worker loads this file and must start fast.
//
// Bounded cardinality: per project and UTC day, at most END_USER_LIMIT distinct end users and
// TAGSET_LIMIT distinct tag sets (the row's whole tag object) are kept apart; later newcomers that
// day are counted under `other`, as is any value longer than MAX_VALUE_LENGTH. The bound is per day
// rather than per hour so that hourly and daily rows always agree, and per project (migration 140)
// so that one project's keys (cheap refused calls included) cannot use up another project's.
//
// Every table is also keyed by the row's request_type (migration 130), so that a report can count
// inference apart from polls and listings (src/logs/report-request-types.ts). The gateway logs
// some twenty types, set by its code rather than by callers, so this needs no bound.

import { compareStrings } from '../util/compare.ts';
import { latencyBin } from './rollups-histogram.ts';

export const HOUR = 3600;
export const DAY = 86_400;
const GRAINS = [HOUR, DAY] as const;

export const END_USER_LIMIT = 1000;
export const TAGSET_LIMIT = 200;
export const MAX_VALUE_LENGTH = 512;
/** Stands for every end user / tag set past the bound. */
export const OTHER = 'other';

export type Dim = 'end_user' | 'tagset';
export const DIM_LIMITS: Record<Dim, number> = { end_user: END_USER_LIMIT, tagset: TAGSET_LIMIT };

/** The request-log columns a rollup reads, as stored. */
export interface RollupSource {
  request_type: string;
  org_id: string;
  project_id: string | null;
  model_used: string | null;
  model_requested: string | null;
  provider: string | null;
  status_code: number;
  latency_ms: number;
  cost_usd: number | null;
  input_tokens: number;
  output_tokens: number;
  end_user: string | null;
  tags: string | null;
  created_at: string;
}

export type Cell = string | number | null;

/** Reads a RollupSource out of positional values (the SQLite worker's rows). */
export function sourceReader(columns: readonly string[]): (values: readonly Cell[]) => RollupSource {
  const at = (name: keyof RollupSource) => {
    const i = columns.indexOf(name);
    if (i < 0) throw new Error(`request log columns lack ${name}`);
    return i;
  };
  const idx = {
    request_type: at('request_type'),
    org_id: at('org_id'),
    project_id: at('project_id'),
    model_used: at('model_used'),
    model_requested: at('model_requested'),
    provider: at('provider'),
    status_code: at('status_code'),
    latency_ms: at('latency_ms'),
    cost_usd: at('cost_usd'),
    input_tokens: at('input_tokens'),
    output_tokens: at('output_tokens'),
    end_user: at('end_user'),
    tags: at('tags'),
    created_at: at('created_at'),
  };
  const text = (v: Cell | undefined) => (v === null || v === undefined ? null : String(v));
  const num = (v: Cell | undefined) => (v === null || v === undefined ? 0 : Number(v));
  return (v) => ({
    request_type: String(v[idx.request_type] ?? ''),
    org_id: String(v[idx.org_id]),
    project_id: text(v[idx.project_id]),
    model_used: text(v[idx.model_used]),
    model_requested: text(v[idx.model_requested]),
    provider: text(v[idx.provider]),
    status_code: num(v[idx.status_code]),
    latency_ms: num(v[idx.latency_ms]),
    cost_usd: v[idx.cost_usd] === null ? null : num(v[idx.cost_usd]),
    input_tokens: num(v[idx.input_tokens]),
    output_tokens: num(v[idx.output_tokens]),
    end_user: text(v[idx.end_user]),
    tags: text(v[idx.tags]),
    created_at: String(v[idx.created_at]),
  });
}

/** A rollup table: its key columns, then the counters an upsert adds to, then `hist`. */
export interface RollupTableSpec {
  name: 'analytics_rollups' | 'analytics_tags' | 'analytics_users';
  key: readonly string[];
  add: readonly string[];
}

const PERIOD = ['org_id', 'grain', 'period_start', 'project_id', 'request_type'] as const;
const BASE_KEY = [...PERIOD, 'model', 'provider'] as const;
const METRICS = ['requests', 'errors', 'input_tokens', 'output_tokens', 'cost_usd'] as const;

/** In the order every writer touches them, which is also the order rows get locked in. */
export const ROLLUP_TABLES: readonly RollupTableSpec[] = [
  { name: 'analytics_rollups', key: [...BASE_KEY, 'status_class'], add: METRICS },
  { name: 'analytics_tags', key: [...BASE_KEY, 'tagset'], add: METRICS },
  { name: 'analytics_users', key: [...PERIOD, 'end_user', 'tagset'], add: METRICS },
];

/**
 * Single-row upsert with `?` placeholders (key, add, hist), for writers that have already merged
 * the stored histogram into `hist` under the database's write lock (SQLite).
 */
export function upsertSql(t: RollupTableSpec): string {
  const cols = [...t.key, ...t.add, 'hist'];
  const set = [...t.add.map((c) => `${c} = ${t.name}.${c} + excluded.${c}`), 'hist = excluded.hist'].join(', ');
  return `INSERT INTO ${t.name} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT (${t.key.join(', ')}) DO UPDATE SET ${set}`;
}

/** The stored histogram of one key, `?` placeholders in key order. */
export function histSql(t: RollupTableSpec): string {
  return `SELECT hist FROM ${t.name} WHERE ${t.key.map((c) => `${c} = ?`).join(' AND ')}`;
}

/** Distinct values of one dimension seen in a batch for one project and day, sorted. */
export interface DimCandidates {
  orgId: string;
  /** '' for the rows of org-wide keys. */
  project: string;
  day: number;
  dim: Dim;
  values: string[];
}

export type Admitted = (orgId: string, project: string, day: number, dim: Dim, value: string) => boolean;

/** The key of one admitted value in the writers' memory of them. */
export const admittedKey = (orgId: string, project: string, day: number, dim: Dim, value: string) =>
  `${orgId}\n${project}\n${day}\n${dim}\n${value}`;

export interface RollupRow {
  key: (string | number)[];
  /** Values of the table's `add` columns. */
  add: number[];
  hist: Map<number, number>;
}

/** Rows to upsert per table, sorted by key. */
export type RollupWrites = { table: RollupTableSpec; rows: RollupRow[] }[];

interface Fact {
  orgId: string;
  project: string;
  requestType: string;
  model: string;
  provider: string;
  statusClass: number;
  isError: number;
  cost: number;
  input: number;
  output: number;
  bin: number;
  seconds: number;
  day: number;
  endUser: string;
  tagset: string;
}

/** The row's tags as canonical JSON (keys sorted), '' when it has none. */
export function canonicalTags(tags: string | null): string {
  if (tags === null || tags === '') return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(tags);
  } catch {
    return '';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return '';
  const entries = Object.entries(parsed as Record<string, unknown>).sort(([a], [b]) => compareStrings(a, b));
  if (entries.length === 0) return '';
  return JSON.stringify(Object.fromEntries(entries.map(([k, v]) => [k, String(v)])));
}

function bounded(v: string): string {
  return v.length > MAX_VALUE_LENGTH ? OTHER : v;
}

/** Accumulates the rows one transaction inserted; `writes()` turns them into upserts. */
export class RollupBatch {
  readonly #facts: Fact[] = [];

  get size(): number {
    return this.#facts.length;
  }

  add(r: RollupSource): void {
    const ms = Date.parse(r.created_at);
    if (Number.isNaN(ms)) return;
    const seconds = Math.floor(ms / 1000);
    this.#facts.push({
      orgId: r.org_id,
      project: r.project_id ?? '',
      requestType: r.request_type,
      model: r.model_used ?? r.model_requested ?? '',
      provider: r.provider ?? '',
      statusClass: Math.floor(r.status_code / 100),
      isError: r.status_code >= 400 ? 1 : 0,
      cost: r.cost_usd ?? 0,
      input: r.input_tokens,
      output: r.output_tokens,
      bin: latencyBin(Math.round(r.latency_ms)),
      seconds,
      day: Math.floor(seconds / DAY),
      endUser: r.end_user === null ? '' : bounded(r.end_user),
      tagset: bounded(canonicalTags(r.tags)),
    });
  }

  /** End users and tag sets of this batch per project and day, in one fixed order for every writer. */
  candidates(): DimCandidates[] {
    const groups = new Map<string, DimCandidates>();
    const note = (f: Fact, dim: Dim, value: string) => {
      if (value === '' || value === OTHER) return;
      const k = JSON.stringify([f.orgId, f.project, f.day, dim]);
      const g = groups.get(k) ?? { orgId: f.orgId, project: f.project, day: f.day, dim, values: [] };
      groups.set(k, g);
      g.values.push(value);
    };
    for (const f of this.#facts) {
      note(f, 'end_user', f.endUser);
      note(f, 'tagset', f.tagset);
    }
    return [...groups.entries()]
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([, g]) => ({ ...g, values: [...new Set(g.values)].sort() }));
  }

  writes(admitted: Admitted): RollupWrites {
    const maps = ROLLUP_TABLES.map(() => new Map<string, RollupRow>());
    const bump = (t: number, key: (string | number)[], f: Fact) => {
      const map = maps[t] as Map<string, RollupRow>;
      const k = JSON.stringify(key);
      const row = map.get(k) ?? { key, add: [0, 0, 0, 0, 0], hist: new Map<number, number>() };
      map.set(k, row);
      const a = row.add as [number, number, number, number, number];
      a[0] += 1;
      a[1] += f.isError;
      a[2] += f.input;
      a[3] += f.output;
      a[4] += f.cost;
      row.hist.set(f.bin, (row.hist.get(f.bin) ?? 0) + 1);
    };
    const keep = (f: Fact, dim: Dim, v: string) =>
      v === '' || v === OTHER || admitted(f.orgId, f.project, f.day, dim, v) ? v : OTHER;
    for (const f of this.#facts) {
      const endUser = keep(f, 'end_user', f.endUser);
      const tagset = keep(f, 'tagset', f.tagset);
      for (const grain of GRAINS) {
        const period = [f.orgId, grain, f.seconds - (f.seconds % grain), f.project, f.requestType];
        bump(0, [...period, f.model, f.provider, f.statusClass], f);
        if (tagset !== '') bump(1, [...period, f.model, f.provider, tagset], f);
        if (endUser !== '') bump(2, [...period, endUser, tagset], f);
      }
    }
    return ROLLUP_TABLES.map((table, t) => ({
      table,
      rows: [...(maps[t] as Map<string, RollupRow>).entries()]
        .sort(([a], [b]) => compareStrings(a, b))
        .map(([, row]) => row),
    }));
  }
}

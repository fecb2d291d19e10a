// A million request-log rows written straight into a gateway's SQLite store, with the analytics
// rollups the overview reads, for the dashboard's performance test and bench/dashboard.ts. One
// transaction: each row through one prepared INSERT, its rollups summed in memory as it is made and
// written once at the end. The log worker's rollup writer (one read-merge-write per key and batch) would take about
// 30 s here. Each rollup key is built as rollups.ts builds it, with the store's own functions for
// the latency bin and the canonical tag set, and the test compares the report with the rows, so the
// two cannot drift apart unnoticed.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { encodeTime } from 'ulid';
import { canonicalTags, DAY, DIM_LIMITS, HOUR } from '../../../src/store/rollups.ts';
import { encodeHist, latencyBin } from '../../../src/store/rollups-histogram.ts';
import { call, type Gateway, startGateway } from '../../helpers/gateway.ts';

const MODELS = [
  ['gpt-4o-mini', 'openai', 0.15, 0.6],
  ['gpt-4o', 'openai', 2.5, 10],
  ['claude-3-5-haiku-latest', 'anthropic', 0.8, 4],
  ['claude-sonnet-4-5', 'anthropic', 3, 15],
  ['gemini-2.0-flash', 'google', 0.1, 0.4],
  ['llama-v3p1-70b-instruct', 'fireworks', 0.9, 0.9],
] as const;
const TEAMS = ['search', 'ads', 'infra'];
const USERS = 80;
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';

/** A deterministic generator, so a slow run can be reproduced. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Ids in the gateway's form (time-sortable), made unique and ordered by a counter. */
function idAt(ms: number, n: number): string {
  let tail = '';
  for (let i = 0, v = n; i < 16; i++, v = Math.floor(v / 32)) tail = BASE32[v % 32] + tail;
  return `req_${encodeTime(ms, 10).toLowerCase()}${tail}`;
}

const COLUMNS = [
  'id',
  'request_type',
  'org_id',
  'project_id',
  'end_user',
  'tags',
  'model_requested',
  'model_used',
  'provider',
  'status_code',
  'latency_ms',
  'ttfb_ms',
  'input_tokens',
  'output_tokens',
  'cost_usd',
  'created_at',
] as const;

/** A rollup row being summed: its key columns' values, counters, and histogram. */
interface Sum {
  key: (string | number)[];
  requests: number;
  errors: number;
  input: number;
  output: number;
  cost: number;
  hist: Map<number, number>;
}

const BASE_KEY = ['org_id', 'grain', 'period_start', 'project_id'];
const TABLES = [
  { name: 'analytics_rollups', key: [...BASE_KEY, 'model', 'provider', 'status_class'] },
  { name: 'analytics_tags', key: [...BASE_KEY, 'model', 'provider', 'tagset'] },
  { name: 'analytics_users', key: [...BASE_KEY, 'end_user', 'tagset'] },
] as const;

/** A new rollup row for `id` (its key columns' values joined), with those values. */
function created(map: Map<string, Sum>, id: string, key: (string | number)[]): Sum {
  const s: Sum = { key, requests: 0, errors: 0, input: 0, output: 0, cost: 0, hist: new Map() };
  map.set(id, s);
  return s;
}

function add(s: Sum, f: Fact): void {
  s.requests++;
  s.errors += f.error;
  s.input += f.input;
  s.output += f.output;
  s.cost += f.cost;
  s.hist.set(f.bin, (s.hist.get(f.bin) ?? 0) + 1);
}

interface Fact {
  error: number;
  input: number;
  output: number;
  cost: number;
  bin: number;
}

export interface MillionOptions {
  file: string;
  orgId: string;
  projectIds: string[];
  rows: number;
  /** Rows are spread evenly over this span, ending a minute before now. */
  spanMs: number;
}

export function seedMillion(opts: MillionOptions): { rows: number; ms: number } {
  // Far below the per-day bounds, so every end user and tag set is kept apart (none is 'other').
  if (USERS > DIM_LIMITS.end_user || TEAMS.length > DIM_LIMITS.tagset)
    throw new Error('seed exceeds the rollup bounds');
  const started = Date.now();
  const db = new Database(opts.file);
  // No journal while seeding a store nothing else has open: the gateway turns WAL back on at start.
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const insert = db.prepare(
    `INSERT INTO request_logs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
  );
  // Building the secondary indexes once at the end is faster than keeping them up to date row by
  // row; they are recreated from their own definitions, so the schema is unchanged.
  const indexes = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'request_logs' AND sql IS NOT NULL",
    )
    .all() as Array<{ name: string; sql: string }>;
  const rollups = new Map<string, Sum>();
  const tagsets = new Map<string, Sum>();
  const users = new Map<string, Sum>();
  const sums = [rollups, tagsets, users];
  const admitted = new Set<string>();
  const rnd = random(20);
  const end = Date.now() - 60_000;
  const start = end - opts.spanMs;
  const step = opts.spanMs / opts.rows;

  db.transaction(() => {
    for (const ix of indexes) db.exec(`DROP INDEX "${ix.name}"`);
    for (let i = 0; i < opts.rows; i++) {
      const ms = Math.floor(start + i * step);
      const [model, provider, inPrice, outPrice] = MODELS[Math.floor(rnd() * MODELS.length)] as (typeof MODELS)[number];
      const r = rnd();
      const status = r < 0.97 ? 200 : r < 0.99 ? 429 : 500;
      const input = 20 + Math.floor(rnd() * 2000);
      const output = status === 200 ? 5 + Math.floor(rnd() * 600) : 0;
      const latency = Math.round(Math.exp(4 + rnd() * 4));
      const user = rnd();
      const team = rnd();
      const project = opts.projectIds[i % opts.projectIds.length] as string;
      const endUser = user < 0.6 ? `user_${Math.floor((user / 0.6) * USERS)}` : null;
      const tags = team < 0.3 ? JSON.stringify({ team: TEAMS[Math.floor((team / 0.3) * TEAMS.length)] }) : null;
      const cost = status === 200 ? (input * inPrice + output * outPrice) / 1e6 : 0;
      // biome-ignore format: one value per column, in COLUMNS order.
      insert.run(idAt(ms, i), 'chat_completion', opts.orgId, project, endUser, tags, `${provider}/${model}`, model, provider, status, latency, Math.round(latency / 3), input, output, cost, new Date(ms).toISOString());
      // The rollup keys of this row, as rollups.ts derives them.
      const seconds = Math.floor(ms / 1000);
      const tagset = canonicalTags(tags);
      const statusClass = Math.floor(status / 100);
      const f: Fact = { error: status >= 400 ? 1 : 0, input, output, cost, bin: latencyBin(latency) };
      for (const grain of [HOUR, DAY]) {
        const periodStart = seconds - (seconds % grain);
        const period = `${grain}|${periodStart}|${project}`;
        // The key's values are listed only for a row not seen before: most rows add to one.
        const k1 = `${period}|${model}|${statusClass}`;
        add(
          rollups.get(k1) ??
            created(rollups, k1, [opts.orgId, grain, periodStart, project, model, provider, statusClass]),
          f,
        );
        if (tagset !== '') {
          const k2 = `${period}|${model}|${tagset}`;
          add(
            tagsets.get(k2) ?? created(tagsets, k2, [opts.orgId, grain, periodStart, project, model, provider, tagset]),
            f,
          );
        }
        if (endUser !== null) {
          const k3 = `${period}|${endUser}|${tagset}`;
          add(users.get(k3) ?? created(users, k3, [opts.orgId, grain, periodStart, project, endUser, tagset]), f);
        }
      }
      const day = Math.floor(seconds / DAY);
      if (endUser !== null) admitted.add(`${day}\u0000end_user\u0000${endUser}`);
      if (tagset !== '') admitted.add(`${day}\u0000tagset\u0000${tagset}`);
    }
    for (const ix of indexes) db.exec(ix.sql);
    TABLES.forEach((t, i) => {
      const cols = [...t.key, 'requests', 'errors', 'input_tokens', 'output_tokens', 'cost_usd', 'hist'];
      const write = db.prepare(`INSERT INTO ${t.name} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
      for (const r of (sums[i] as Map<string, Sum>).values()) {
        write.run(...r.key, r.requests, r.errors, r.input, r.output, r.cost, encodeHist(r.hist));
      }
    });
    // Which end users and tag sets each day admitted, as the writer records them.
    const value = db.prepare('INSERT INTO analytics_dim_values (org_id, day, dim, value) VALUES (?, ?, ?, ?)');
    const used = new Map<string, number>();
    for (const a of admitted) {
      const [day, dim, v] = a.split('\u0000') as [string, string, string];
      value.run(opts.orgId, Number(day), dim, v);
      used.set(`${day}\u0000${dim}`, (used.get(`${day}\u0000${dim}`) ?? 0) + 1);
    }
    const slot = db.prepare('INSERT INTO analytics_dim_slots (org_id, day, dim, used) VALUES (?, ?, ?, ?)');
    for (const [k, n] of used) {
      const [day, dim] = k.split('\u0000') as [string, string];
      slot.run(opts.orgId, Number(day), dim, n);
    }
  })();
  db.close();
  return { rows: opts.rows, ms: Date.now() - started };
}

export interface MillionGateway {
  gw: Gateway;
  /** The SQLite file with the rows. */
  file: string;
  orgId: string;
  seedMs: number;
  /** Stops the gateway and removes its store (~600 MB), which no test gateway would remove. */
  close(): Promise<void>;
}

/**
 * A gateway whose store holds `rows` logged requests over `spanMs` in three projects: one gateway
 * makes the store and two projects and stops, the rows go in, and a second one serves them.
 */
export async function startMillionGateway(rows: number, spanMs: number): Promise<MillionGateway> {
  const first = await startGateway();
  const projects: string[] = [];
  for (const name of ['Search', 'Ads']) {
    projects.push(((await call(first, 'POST', '/manage/v1/projects', { name })).body as { id: string }).id);
  }
  const dataDir = first.dataDir;
  await first.close({ keepData: true });
  const file = join(dataDir, 'switchyard.db');
  const db = new Database(file, { readonly: true });
  const orgId = (db.prepare('SELECT id FROM orgs').get() as { id: string }).id;
  const defaultProject = (db.prepare("SELECT id FROM projects WHERE slug = 'default'").get() as { id: string }).id;
  db.close();
  const seedMs = seedMillion({ file, orgId, projectIds: [defaultProject, ...projects], rows, spanMs }).ms;
  const gw = await startGateway({ dataDir });
  return {
    gw,
    file,
    orgId,
    seedMs,
    async close() {
      await gw.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

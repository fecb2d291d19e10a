// The request-log path on the proxy thread, per row (issue 32): what one finished call costs from the
// afterResponse hook (row mapping) through the journal append to the hand-off to the SQLite log
// worker, for this checkout and for another revision's sources (extracted with `git archive`, so
// nothing in the working tree moves), alternated round by round in one process. Two figures: the
// proxy thread's CPU, and the whole process's (the log worker's parsing and inserts, and the flush
// that ends each round, included).
//
//   node --import tsx bench/log-path.ts [--against <rev>] [--rounds 12] [--turns 300] [--per-turn 8]
//                                       [--postgres <url>]
//
// With --postgres the path is PostgreSQL mode's instead (journal, then the in-thread writer, whose
// inserts run on the proxy thread, so they count there too; each side gets a schema of its own).
//
// A "turn" is one event-loop turn of a loaded gateway: --per-turn calls finish in it, then the loop
// moves on (setImmediate), which is when per-turn work (the hand-off to the worker) runs. A no-op
// hook measured the same way gives the loop's own cost, which is subtracted.
import { execFileSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import type { CallRecord } from '../src/pipeline/record.ts';
import { newId } from '../src/util/ids.ts';

type HookModule = typeof import('../src/logs/request-log-hook.ts');
type JournalModule = typeof import('../src/logs/journal.ts');
type WorkerModule = typeof import('../src/logs/worker-writer.ts');
type WriterModule = typeof import('../src/logs/writer.ts');
type ConfigModule = typeof import('../src/config.ts');
type StoreModule = typeof import('../src/store/index.ts');

interface Options {
  against: string;
  postgres: string | null;
  rounds: number;
  turns: number;
  perTurn: number;
}

function parse(argv: string[]): Options {
  const o: Options = { against: 'HEAD', postgres: null, rounds: 12, turns: 300, perTurn: 8 };
  for (let i = 0; i < argv.length; i += 2) {
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`${argv[i]} needs a value`);
    if (argv[i] === '--against') o.against = v;
    else if (argv[i] === '--postgres') o.postgres = v;
    else if (argv[i] === '--rounds') o.rounds = Number(v);
    else if (argv[i] === '--turns') o.turns = Number(v);
    else if (argv[i] === '--per-turn') o.perTurn = Number(v);
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return o;
}

const silent = pino({ level: 'silent' });
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A revision's src/ in a temp dir that resolves packages through this checkout's node_modules. */
function extract(rev: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-logpath-'));
  const tar = execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', rev, 'src'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  // ESM like here, or tsx compiles the extracted sources as CommonJS.
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

interface LogPath {
  name: string;
  hook: (r: CallRecord) => void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The gateway's log path (services.ts, app.ts) built from the sources under `root`. */
async function openPath(name: string, root: string, postgres: string | null): Promise<LogPath> {
  const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(root, path)).href) as Promise<T>;
  const { requestLogHook } = await load<HookModule>('src/logs/request-log-hook.ts');
  const { JournaledSink } = await load<JournalModule>('src/logs/journal.ts');
  const { WorkerLogWriter } = await load<WorkerModule>('src/logs/worker-writer.ts');
  const { LogWriter } = await load<WriterModule>('src/logs/writer.ts');
  const { loadConfig } = await load<ConfigModule>('src/config.ts');
  const { openStore } = await load<StoreModule>('src/store/index.ts');
  const dataDir = mkdtempSync(join(tmpdir(), `switchyard-logpath-${name}-`));
  const schema = `bench_logpath_${process.pid}_${name.replace(/\W/g, '_').toLowerCase()}`;
  const config = loadConfig({}, postgres === null ? { dataDir } : { dataDir, databaseUrl: postgres, pgSchema: schema });
  const handle = await openStore(config);
  const inThread = new LogWriter(handle.stores.logs, silent);
  const writer = postgres === null ? new WorkerLogWriter(handle.where, silent, inThread) : inThread;
  const sink = await JournaledSink.open(join(dataDir, 'journal'), writer, silent);
  await sink.flush(); // the worker is up before anything is timed
  const afterResponse = requestLogHook(sink, () => true, 64 * 1024);
  return {
    name,
    hook: (r) => afterResponse(r),
    flush: () => sink.flush(),
    async close() {
      await sink.close();
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (postgres !== null) await dropSchema(postgres, schema);
    },
  };
}

const REQUEST = JSON.stringify({
  model: 'openai/gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a terse assistant. Answer in one sentence.' },
    { role: 'user', content: 'Summarise the plot of a short story about a lighthouse keeper and a storm.' },
  ],
  temperature: 0.2,
});
const RESPONSE = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content:
          'A lighthouse keeper keeps the lamp burning through a night-long storm, guiding a lost fishing boat home "just in time".',
      },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 38, completion_tokens: 27, total_tokens: 65 },
});

/** A pass-through chat call as the hooks see it, with a fresh id (the store skips ids it has). */
function record(n: number): CallRecord {
  return {
    id: newId('req'),
    requestType: 'chat_completion',
    orgId: 'org_bench',
    projectId: 'proj_bench',
    keyId: 'key_bench',
    endUser: null,
    tags: n % 4 === 0 ? { team: 'search' } : {},
    traceId: null,
    conversationId: null,
    modelRequested: 'openai/gpt-4o-mini',
    modelUsed: 'gpt-4o-mini',
    vendor: 'openai',
    credentialId: 'prov_bench',
    status: 200,
    latencyMs: 3.4567 + (n % 7),
    ttfbMs: 3.1234,
    usage: { input: 38, output: 27 },
    costUsd: 0.0000219,
    error: null,
    trace: {
      policy: 'direct',
      config: null,
      candidates: [{ model: 'gpt-4o-mini', provider: 'openai', eligible: true, reason: null }],
      matched_rule: null,
      variant_bucket: null,
      attempts: [{ model: 'gpt-4o-mini', provider: 'openai', status: 200, latency_ms: 3 }],
      served_by: { model: 'gpt-4o-mini', provider: 'openai' },
    },
    requestBody: REQUEST,
    responseBody: RESPONSE,
    createdAt: Date.now(),
    healthSamples: [],
    features: {},
    answer: null,
    replayOf: null,
  };
}

const SCHEDSTAT = `/proc/${process.pid}/task/${process.pid}/schedstat`;

/**
 * Microseconds the main thread has spent on a CPU (Linux schedstat): unlike wall time, not inflated
 * while the thread waits for a core, which the other processes of a shared machine often make it do.
 */
function mainThreadCpuUs(): number {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1000;
  } catch {
    return performance.now() * 1000;
  }
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Cost {
  /** Microseconds of the proxy thread's CPU per row. */
  main: number;
  /** Microseconds of the whole process's CPU per row, the log worker's inserts included. */
  process: number;
}

/** One round: `turns` turns of `perTurn` hook calls each, then a flush (counted in `process` only). */
async function round(hook: (r: CallRecord) => void, flush: () => Promise<void>, o: Options): Promise<Cost> {
  const records = Array.from({ length: o.turns * o.perTurn }, (_, i) => record(i));
  let i = 0;
  const p0 = process.cpuUsage();
  const t0 = mainThreadCpuUs();
  for (let t = 0; t < o.turns; t++) {
    for (let k = 0; k < o.perTurn; k++) hook(records[i++]);
    await nextTurn();
  }
  const main = (mainThreadCpuUs() - t0) / records.length;
  await flush();
  const p = process.cpuUsage(p0);
  return { main, process: (p.user + p.system) / records.length };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** What grouping the journal's appends per turn would save at most: N writes vs one of the joined lines. */
function appendCost(o: Options): { perRow: number; perTurn: number } {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-append-'));
  const fd = openSync(join(dir, 'a.ndjson'), 'a');
  const line = `${JSON.stringify({ ...record(0), requestBody: REQUEST, responseBody: RESPONSE })}\n`;
  const rows = o.turns * o.perTurn * 4;
  try {
    const a = mainThreadCpuUs();
    for (let i = 0; i < rows; i++) writeSync(fd, line);
    const b = mainThreadCpuUs();
    for (let i = 0; i < rows; i += o.perTurn) writeSync(fd, line.repeat(o.perTurn));
    const c = mainThreadCpuUs();
    return { perRow: (b - a) / rows, perTurn: (c - b) / rows };
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

const o = parse(process.argv.slice(2));
const baseDir = extract(o.against);
const paths = [await openPath(o.against, baseDir, o.postgres), await openPath('this checkout', ROOT, o.postgres)];
const idle = { name: 'loop', hook: (_r: CallRecord): void => {}, flush: async () => {} };
const costs = new Map<string, Cost[]>([idle, ...paths].map((p) => [p.name, []]));
try {
  // Warm-up rounds, not recorded: the JIT and the worker's first batches.
  for (const p of paths) await round(p.hook, p.flush, o);
  for (let r = 0; r < o.rounds; r++) {
    // Alternated, and the order flipped every round, so drift in machine load hits both alike.
    const order = r % 2 === 0 ? paths : [...paths].reverse();
    for (const p of [idle, ...order]) costs.get(p.name)?.push(await round(p.hook, p.flush, o));
  }
} finally {
  for (const p of paths) await p.close();
  rmSync(baseDir, { recursive: true, force: true });
}

const of = (name: string, k: keyof Cost): number[] => (costs.get(name) ?? []).map((c) => c[k]);
const loop = { main: median(of('loop', 'main')), process: median(of('loop', 'process')) };
console.log(
  `request-log path, ${o.postgres === null ? 'SQLite' : 'PostgreSQL'} mode, ${o.turns} turns x ${o.perTurn} rows, ${o.rounds} rounds: median us of CPU per row, the loop's own cost (${loop.main.toFixed(2)} us) subtracted`,
);
for (const k of ['main', 'process'] as const) {
  const what = k === 'main' ? 'proxy thread' : 'whole process (log worker and inserts included)';
  const net = paths.map((p) => median(of(p.name, k)) - loop[k]);
  console.log(`${what}:`);
  for (const [i, p] of paths.entries()) {
    const all = of(p.name, k)
      .map((t) => (t - loop[k]).toFixed(1))
      .join(' ');
    console.log(`  ${p.name.padEnd(14)} ${net[i].toFixed(2).padStart(7)} us   (rounds: ${all})`);
  }
  console.log(`  after / before ${(net[1] / net[0]).toFixed(2)}`);
}
const append = appendCost(o);
console.log(
  `journal append alone: ${append.perRow.toFixed(2)} us per row written one by one, ${append.perTurn.toFixed(2)} us per row written ${o.perTurn} to a write`,
);

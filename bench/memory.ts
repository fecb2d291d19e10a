// Resident memory of built gateways side by side (issue 32 item 4: idle under 100 MB, peak at c=32
// under 150 MB). Each `--root` is a checkout with a fresh dist/ (`npm run build`); the roots take
// turns, round after round, so a loaded shared machine weighs on each of them alike.
//
//   node --import tsx bench/memory.ts --root scratch/before --root . [--rounds 2] [--duration 8]
//     [--idle 4] [--rest 30]   idle: RSS that long after start; rest: that long (after a quiet spell
//                              `serve` gives the young generation back, src/cli/idle-heap.ts)
//     [--settle 25]            how long after the load the "settled" figure is read (the bench's
//                              "idle: at rest after the soak" row, judged against the 100 MB goal)
//     [--node-options= --node-options=--max-semi-space-size=4]
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pickGenerator } from './load/index.ts';
import { RssSampler } from './rss.ts';
import { SCENARIOS } from './scenarios.ts';
import { Processes, ROOT } from './stack.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', multiple: true, default: ['.'] },
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '8' },
    idle: { type: 'string', default: '4' },
    rest: { type: 'string', default: '30' },
    settle: { type: 'string', default: '25' },
    /** NODE_OPTIONS for the gateways: `--node-options=` and `--node-options=--max-semi-space-size=2` compare V8 settings. */
    'node-options': { type: 'string', multiple: true },
  },
});
const roots = (values.root ?? ['.']).map((r) => resolve(ROOT, r));
// Every root runs under every NODE_OPTIONS variant; none given means the environment's.
const variants = values['node-options'] ?? [process.env.NODE_OPTIONS ?? ''];
const rounds = Number(values.rounds);
const durationSec = Number(values.duration);
const idleSec = Number(values.idle);
const restSec = Math.max(idleSec, Number(values.rest));
const settleSec = Math.max(2, Number(values.settle));
const LOADED = ['passthrough', 'passthrough-stream', 'translated'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Sample {
  idleMb: number;
  restMb: number;
  peakMb: number;
  afterMb: number;
  /** `--settle` seconds after the load: what a gateway keeps once a burst is over. */
  settledMb: number;
  /** Per loaded scenario, so a setting that saves memory by costing throughput shows it. */
  rps: number[];
}

async function measure(procs: Processes, fakeUrl: string, root: string, nodeOptions: string): Promise<Sample> {
  const gen = pickGenerator('auto');
  const gateway = await procs.startGateway({ fakeUrl, root, env: { NODE_OPTIONS: nodeOptions } });
  const rss = new RssSampler(gateway.proc.pid, 100);
  try {
    await sleep(idleSec * 1000);
    const idleMb = median(rss.between(rss.now() - 1000, Number.POSITIVE_INFINITY));
    await sleep((restSec - idleSec) * 1000);
    const restMb = median(rss.between(rss.now() - 1000, Number.POSITIVE_INFINITY));
    const loadStart = rss.now();
    const rps: number[] = [];
    for (const id of LOADED) {
      const s = SCENARIOS.find((x) => x.id === id);
      if (!s) continue;
      const r = await gen.run({ ...s.gateway(gateway.url), connections: 32, durationSec });
      rps.push(r.rps);
      if (r.non2xx + r.errors > 0) log(`  ${id}: ${r.non2xx + r.errors} failed calls`);
    }
    const peakMb = Math.max(...rss.between(loadStart, Number.POSITIVE_INFINITY));
    await sleep(2000);
    const afterMb = median(rss.between(rss.now() - 1000, Number.POSITIVE_INFINITY));
    await sleep((settleSec - 2) * 1000);
    const settledMb = median(rss.between(rss.now() - 2000, Number.POSITIVE_INFINITY));
    return { idleMb, restMb, peakMb, afterMb, settledMb, rps };
  } finally {
    rss.stop();
    await gateway.stop();
    procs.gateway = null;
  }
}

async function main(): Promise<void> {
  const procs = new Processes();
  const runs = roots.flatMap((root) => variants.map((nodeOptions) => ({ root, nodeOptions })));
  const label = (r: { root: string; nodeOptions: string }) => (r.nodeOptions ? `${r.root} (${r.nodeOptions})` : r.root);
  const results = new Map<string, Sample[]>(runs.map((r) => [label(r), []]));
  try {
    const fake = await procs.startFake();
    for (let i = 0; i < rounds; i++) {
      for (const run of runs) {
        const s = await measure(procs, fake.url, run.root, run.nodeOptions);
        results.get(label(run))?.push(s);
        log(
          `round ${i + 1} ${label(run)}: idle ${s.idleMb.toFixed(1)} MB, at rest ${s.restMb.toFixed(1)} MB, peak c=32 ${s.peakMb.toFixed(1)} MB, settled ${s.settledMb.toFixed(1)} MB, ${s.rps.map((x) => Math.round(x)).join('/')} rps`,
        );
      }
    }
  } finally {
    await procs.stopAll();
  }
  process.stdout.write(
    `\n| root | idle ${idleSec} s MB | at rest ${restSec} s MB | peak c=32 MB | after load MB | settled ${settleSec} s MB | rps (${LOADED.join(', ')}) |\n|---|---|---|---|---|---|---|\n`,
  );
  for (const [name, samples] of results) {
    const m = (f: (s: Sample) => number) => median(samples.map(f)).toFixed(1);
    const rps = LOADED.map((_, i) => Math.round(median(samples.map((s) => s.rps[i] ?? 0)))).join(' / ');
    process.stdout.write(
      `| ${name} | ${m((s) => s.idleMb)} | ${m((s) => s.restMb)} | ${m((s) => s.peakMb)} | ${m((s) => s.afterMb)} | ${m((s) => s.settledMb)} | ${rps} |\n`,
    );
  }
  process.stdout.write('\n(medians over the rounds)\n');
}

await main();

// `npm run bench`: fake upstream, gateway and load generator on loopback; every scenario direct and
// through the gateway in the same run; one table printed and written to bench/results/.
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { type BenchOptions, parseArgs, USAGE } from './args.ts';
import { applyGuardrails, applyLimits } from './feature-load.ts';
import { pickGenerator } from './load/index.ts';
import { summarizeFile } from './profile-summary.ts';
import { buildRows, renderTable } from './report.ts';
import { buildFloorRows, renderFloorTable } from './report-floor.ts';
import { RssSampler } from './rss.ts';
import { SCENARIOS } from './scenarios.ts';
import { Processes, ROOT } from './stack.ts';
import { median } from './stats.ts';
import { runSoak, runSuite } from './suite.ts';
import type { RunResult } from './types.ts';

const RESULTS = join(ROOT, 'bench/results');
const log = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function bench(o: BenchOptions): Promise<void> {
  const gen = pickGenerator(o.loadgen);
  const procs = new Processes();
  const started = Date.now();
  try {
    log(`load generator: ${gen.name}`);
    const fake = await procs.startFake();
    const floor = o.floor ? await procs.startFloor(fake.url) : null;
    const peer = o.peer ? await procs.startPeer(o.peer, log) : null;
    const gateway = await procs.startGateway({ fakeUrl: fake.url });
    log(
      `fake ${fake.url} (pid ${fake.proc.pid}), gateway ${gateway.url} (pid ${gateway.proc.pid})${floor ? `, floor ${floor.url} (pid ${floor.proc.pid})` : ''}${peer ? `, ${peer.name} ${peer.url}` : ''}`,
    );
    const gatewayRss = new RssSampler(gateway.proc.pid);
    const peerRss = peer ? new RssSampler(peer.proc.pid) : null;
    await sleep(1500);
    const idleMb = median(gatewayRss.between(gatewayRss.now() - 1000, Number.POSITIVE_INFINITY));
    const stack = {
      fakeUrl: fake.url,
      fakePid: fake.proc.pid,
      floor: floor ? { url: floor.url, pid: floor.proc.pid } : null,
      gateway,
      peer,
      gen,
      gatewayRss,
      peerRss,
    };
    const suite = await runSuite(stack, o, log);
    const soak = await runSoak(stack, o, idleMb, log);
    gatewayRss.stop();
    peerRss?.stop();
    const result: RunResult = {
      date: new Date().toISOString(),
      machine: { cores: cpus().length, node: process.version, cpu: cpus()[0]?.model ?? 'unknown', loadgen: gen.name },
      options: { durationSec: o.durationSec, warmupSec: o.warmupSec, soakSec: o.soakSec, peer: o.peer, floor: o.floor },
      peer: peer ? { name: peer.name, version: peer.version } : null,
      measurements: suite.measurements,
      rss: {
        gateway: { ...soak, peakC32Mb: suite.gatewayPeakC32Mb },
        peerPeakC32Mb: suite.peerPeakC32Mb,
        gatewayTimeline: gatewayRss.samples.map((x): [number, number] => [x.t, Math.round(x.mb * 10) / 10]),
      },
    };
    const chosen = SCENARIOS.filter((s) => o.only.length === 0 || o.only.includes(s.id));
    const floorRows = buildFloorRows(result, chosen);
    const table = [
      renderTable(buildRows(result, chosen), peer?.name ?? null),
      ...(floorRows.length > 0
        ? ['', 'Against the floor (bench/floor-proxy.ts, issue 32):', '', renderFloorTable(floorRows)]
        : []),
    ].join('\n');
    await writeResults(result, table);
    process.stdout.write(`\n${table}\n\n`);
    log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; results in bench/results/latest.{json,md}`);
  } finally {
    await procs.stopAll();
  }
}

async function writeResults(result: RunResult, table: string): Promise<void> {
  await mkdir(RESULTS, { recursive: true });
  const stamp = result.date.replace(/[:.]/g, '-');
  const md = [
    `# bench ${result.date}`,
    '',
    `machine: ${result.machine.cores} cores (${result.machine.cpu}), Node ${result.machine.node}, load generator ${result.machine.loadgen}`,
    `options: ${JSON.stringify(result.options)}`,
    '',
    table,
    '',
  ].join('\n');
  const json = `${JSON.stringify(result, null, 2)}\n`;
  for (const name of [stamp, 'latest']) {
    await writeFile(join(RESULTS, `${name}.json`), json);
    await writeFile(join(RESULTS, `${name}.md`), md);
  }
}

/** Pass-through load (non-stream then stream) against a gateway under `node --cpu-prof`. */
async function profile(o: BenchOptions): Promise<void> {
  const gen = pickGenerator(o.loadgen);
  const procs = new Processes();
  const dir = join(RESULTS, 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));
  await mkdir(dir, { recursive: true });
  try {
    const fake = await procs.startFake();
    const gateway = await procs.startGateway({ fakeUrl: fake.url, cpuProfDir: dir });
    if (o.limits) await applyLimits(gateway);
    if (o.guardrails) await applyGuardrails(gateway);
    for (const id of o.only.length > 0 ? o.only : ['passthrough', 'passthrough-stream']) {
      const s = SCENARIOS.find((x) => x.id === id);
      if (!s) continue;
      const spec = s.gateway(gateway.url);
      const body = o.paceMs > 0 ? spec.body.replaceAll('chunks-20', `chunks-20-pace-${o.paceMs}`) : spec.body;
      const r = await gen.run({ ...spec, body, connections: 32, durationSec: o.durationSec * 2 });
      log(`  ${id}: ${Math.round(r.rps)} rps, p50 ${r.p50Ms.toFixed(3)} ms (${r.non2xx + r.errors} failed)`);
    }
    await gateway.proc.stop();
  } finally {
    await procs.stopAll();
  }
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`the gateway wrote no profile into ${dir}`);
  process.stdout.write(`${await summarizeFile(join(dir, files[0]), ROOT)}\n`);
}

/** The gateway runs through bin/switchyard.js, which falls back to tsx on a stale dist/: build first. */
function buildDist(): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.js')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('npm run build failed; the bench measures the compiled gateway');
}

const opts = parseArgs(process.argv.slice(2));
if (opts.help) process.stdout.write(`${USAGE}\n`);
else {
  buildDist();
  await (opts.profile ? profile(opts) : bench(opts));
}

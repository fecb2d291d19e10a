// Garbage collection per request, the gateway beside the floor (issue 32). Allocation, survival and
// promotion are counted by V8 itself (`--trace-gc-nvp`), so unlike time they hardly move with the
// machine's load; the CPU split says how much runs off the main thread (V8's helpers, the log
// worker). Both processes serve the same c=32 load in turn, scenario by scenario.
//
//   node --import tsx bench/gc.ts [--only passthrough,translated] [--duration 5] [--node-arg=--max-semi-space-size=32] [--no-build]
//     --node-arg  a flag for the gateway's node (repeatable): compare V8 settings
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { clockTicks } from './cpu.ts';
import { startGateway } from './gateway.ts';
import { busiestIsolate, parseNvp, splitTicks, threadTicks } from './gc-stats.ts';
import { pickGenerator } from './load/index.ts';
import type { RequestSpec } from './load/types.ts';
import type { Proc } from './procs.ts';
import { SCENARIOS } from './scenarios.ts';
import { ROOT, startFake, startFloor } from './stack.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'passthrough,passthrough-stream,translated' },
    duration: { type: 'string', default: '5' },
    'node-arg': { type: 'string', multiple: true, default: [] },
    'no-build': { type: 'boolean', default: false },
  },
});
const durationSec = Number(values.duration);
const ids = (values.only ?? '').split(',');
const scenarios = SCENARIOS.filter((s) => ids.includes(s.id) && s.measures.includes('c32'));
if (scenarios.length === 0) throw new Error(`no c=32 scenario among ${values.only}`);

if (!values['no-build']) {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.js')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (build.status !== 0) throw new Error('npm run build failed; the bench measures the compiled gateway');
}

const NVP = '--trace-gc-nvp';
const fake = await startFake();
const floor = await startFloor(fake.url, [NVP]);
const gateway = await startGateway({ fakeUrl: fake.url, nodeArgs: [NVP, ...(values['node-arg'] ?? [])] });
const load = pickGenerator('auto');

/** One measured run: the process's GC output and thread CPU over exactly that run. */
async function measure(proc: Proc, spec: RequestSpec): Promise<string> {
  await load.run({ ...spec, connections: 32, durationSec: 2 });
  let out = '';
  const keep = (b: Buffer): void => {
    out += b.toString('utf8');
  };
  proc.child.stdout?.on('data', keep);
  const before = threadTicks(proc.pid);
  const r = await load.run({ ...spec, connections: 32, durationSec });
  const cpu = splitTicks(proc.pid, before, threadTicks(proc.pid));
  proc.child.stdout?.off('data', keep);
  const g = busiestIsolate(parseNvp(out));
  const n = Math.max(1, r.requests);
  const kb = (bytes: number): string => (bytes / n / 1024).toFixed(1);
  const us = (ticks: number): string => ((ticks * 1e6) / clockTicks() / n).toFixed(0);
  if (g === undefined) return `${r.rps.toFixed(0)} | - | - | - | - | - | ${us(cpu.main)} | ${us(cpu.others)}`;
  return `${r.rps.toFixed(0)} | ${kb(g.allocated)} | ${kb(g.survived)} | ${kb(g.promoted)} | ${g.scavenges} | ${g.fullGcs} | ${us(cpu.main)} | ${us(cpu.others)}`;
}

const rows: string[] = [];
try {
  for (const s of scenarios) {
    rows.push(`| ${s.id} | floor | ${await measure(floor.proc, s.direct(floor.url))} |`);
    rows.push(`| ${s.id} | gateway | ${await measure(gateway.proc, s.gateway(gateway.url))} |`);
  }
} finally {
  await gateway.stop();
  await floor.proc.stop();
  await fake.proc.stop();
}
console.log(`c=32, ${durationSec} s per run; per request unless said; the main isolate's collections`);
console.log(`gateway node flags: ${[NVP, ...(values['node-arg'] ?? [])].join(' ')}\n`);
console.log(
  '| scenario | target | RPS | allocated KB | survived KB | promoted KB | scavenges | full GCs | CPU main thread, us | CPU other threads, us |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);

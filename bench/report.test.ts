import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseArgs } from './args.ts';
import { parseStatTicks } from './cpu.ts';
import { fromAutocannon } from './load/autocannon.ts';
import { type CpuProfile, hotFunctions } from './profile-summary.ts';
import { buildRows, isValid, renderTable } from './report.ts';
import { buildFloorRows, renderFloorTable } from './report-floor.ts';
import { parseVmRssMb } from './rss.ts';
import { median, percentile } from './stats.ts';
import type { Measurement, RunResult } from './types.ts';

const m = (p: Partial<Measurement> & Pick<Measurement, 'target' | 'measure'>): Measurement => ({
  scenario: 'passthrough',
  requests: 1000,
  rps: 0,
  p50Ms: 1,
  p99Ms: 2,
  failures: 0,
  ...p,
});

function run(measurements: Measurement[]): RunResult {
  return {
    date: '2026-11-21T00:00:00.000Z',
    machine: { cores: 2, node: 'v20', cpu: 'x', loadgen: 'wrk' },
    options: { durationSec: 1, warmupSec: 1, soakSec: 60, peer: 'portkey' },
    peer: { name: 'portkey', version: '1.15.2' },
    measurements,
    rss: {
      gateway: {
        idleMb: 80,
        peakC32Mb: 120,
        soakStartMb: 100,
        soakEndMb: 105,
        soakStartFloorMb: 100,
        soakEndFloorMb: 104,
        soakSec: 60,
        soakRequests: 10,
        soakFailures: 0,
      },
      peerPeakC32Mb: 200,
      gatewayTimeline: [],
    },
  };
}

test('added latency and RPS ratios come from the same run', () => {
  const rows = buildRows(
    run([
      m({ target: 'direct', measure: 'c1', p50Ms: 0.4 }),
      m({ target: 'gateway', measure: 'c1', p50Ms: 0.55 }),
      m({ target: 'direct', measure: 'c32', rps: 10000 }),
      m({ target: 'gateway', measure: 'c32', rps: 5000 }),
      m({ target: 'peer', measure: 'c32', rps: 400 }),
    ]),
    [{ id: 'passthrough', measures: ['c1', 'c32'] }],
  );
  const lat = rows.find((r) => r.metric === 'latency p50 @c=1, ms');
  assert.equal(lat?.delta, '+0.150 ms');
  assert.equal(lat?.status, 'met');
  const rps = rows.find((r) => r.metric === 'RPS @c=32');
  assert.equal(rps?.delta, '50% of direct, 12.5x peer');
  assert.equal(rps?.status, 'met');
  const soak = rows.find((r) => r.metric.includes('floor after GC'));
  assert.equal(soak?.status, 'met');
  assert.equal(soak?.delta, '+4.0% (10 streams)');
  assert.equal(rows.find((r) => r.metric === 'peak under c=32, MB')?.peer, '200.0');
  // No at-rest sample (a result from before it was taken) is not judged.
  assert.equal(rows.find((r) => r.metric.startsWith('idle: at rest'))?.status, 'n/a');
  const table = renderTable(rows, 'portkey');
  assert.match(table.split('\n')[0], /\| portkey \|/);
});

test('the idle figure is the gateway at rest after the soak, under 100 MB', () => {
  const r = run([]);
  const rest = (mb: number) => {
    r.rss.gateway.restMb = mb;
    return buildRows(r, []).find((row) => row.metric.startsWith('idle: at rest'));
  };
  assert.deepEqual([rest(96.5)?.gateway, rest(96.5)?.status], ['96.5', 'met']);
  assert.equal(rest(100)?.status, 'missed');
});

test('whole-millisecond latencies from autocannon are shown but not judged', () => {
  const r = run([m({ target: 'direct', measure: 'c1', p50Ms: 0 }), m({ target: 'gateway', measure: 'c1', p50Ms: 0 })]);
  r.machine.loadgen = 'autocannon';
  const [p50] = buildRows(r, [{ id: 'passthrough', measures: ['c1'] }]);
  assert.equal(p50.status, 'n/a');
  assert.match(p50.target, /not judged/);
});

test('a target that failed more than 1% of requests makes the row invalid', () => {
  assert.equal(isValid(m({ target: 'gateway', measure: 'c1', failures: 11 })), false);
  const rows = buildRows(
    run([
      m({ target: 'direct', measure: 'c1', p50Ms: 0.4 }),
      m({ target: 'gateway', measure: 'c1', p50Ms: 0.1, failures: 500 }),
    ]),
    [{ id: 'passthrough', measures: ['c1'] }],
  );
  assert.equal(rows[0].status, 'invalid');
  assert.match(rows[0].gateway, /500 failed/);
});

test('the floor gets its own column, and a run without it keeps the old table', () => {
  const rows = buildRows(
    run([
      m({ target: 'direct', measure: 'c1', p50Ms: 0.4 }),
      m({ target: 'floor', measure: 'c1', p50Ms: 0.45 }),
      m({ target: 'gateway', measure: 'c1', p50Ms: 0.55 }),
      m({ target: 'direct', measure: 'c32', rps: 10000, cpuUsPerReq: 40 }),
      m({ target: 'floor', measure: 'c32', rps: 8000, cpuUsPerReq: 90 }),
      m({ target: 'gateway', measure: 'c32', rps: 5000, cpuUsPerReq: 300 }),
    ]),
    [{ id: 'passthrough', measures: ['c1', 'c32'] }],
  );
  assert.equal(rows.find((r) => r.metric === 'latency p50 @c=1, ms')?.floor, '0.450 (+0.050)');
  assert.equal(rows.find((r) => r.metric === 'RPS @c=32')?.floor, '8000 (80%)');
  assert.equal(rows.find((r) => r.metric === 'CPU per request @c=32, us')?.floor, '90');
  const head = renderTable(rows, null).split('\n')[0];
  assert.equal(head, '| scenario | metric | direct | floor | switchyard | added / ratio | peer | target | status |');
  const without = buildRows(run([m({ target: 'direct', measure: 'c1' }), m({ target: 'gateway', measure: 'c1' })]), [
    { id: 'passthrough', measures: ['c1'] },
  ]);
  assert.doesNotMatch(renderTable(without, null).split('\n')[0], /floor/);
  assert.deepEqual(buildFloorRows(run([]), [{ id: 'passthrough', measures: ['c1'] }]), []);
});

test('switchyard against the floor: RPS share, added-latency multiple, CPU per request, issue 32 goals', () => {
  const r = run([
    m({ target: 'direct', measure: 'c1', p50Ms: 0.5 }),
    m({ target: 'floor', measure: 'c1', p50Ms: 0.564 }),
    m({ target: 'gateway', measure: 'c1', p50Ms: 0.793 }),
    m({ target: 'direct', measure: 'c32', rps: 20000, cpuUsPerReq: 40 }),
    m({ target: 'floor', measure: 'c32', rps: 10000, cpuUsPerReq: 80 }),
    m({ target: 'gateway', measure: 'c32', rps: 2400, cpuUsPerReq: 300 }),
    m({ scenario: 'passthrough-stream', target: 'direct', measure: 'ttfb', p50Ms: 0.3 }),
    m({ scenario: 'passthrough-stream', target: 'floor', measure: 'ttfb', p50Ms: 0.29 }),
    m({ scenario: 'passthrough-stream', target: 'gateway', measure: 'ttfb', p50Ms: 0.5 }),
    m({ scenario: 'passthrough-stream', target: 'direct', measure: 'c32', rps: 9000 }),
    m({ scenario: 'passthrough-stream', target: 'floor', measure: 'c32', rps: 6000 }),
    m({ scenario: 'passthrough-stream', target: 'gateway', measure: 'c32', rps: 4500, failures: 100 }),
  ]);
  const rows = buildFloorRows(r, [
    { id: 'passthrough', measures: ['c1', 'c32'] },
    { id: 'passthrough-stream', measures: ['ttfb', 'c32'] },
    { id: 'embeddings', measures: ['c1', 'c32'] },
  ]);
  const [added, rps, cpu, ttfb, streamRps, streamCpu] = rows;
  assert.equal(rows.length, 6, 'a scenario without floor runs has no rows');
  assert.deepEqual(
    [added.floor, added.gateway, added.ratio, added.goal, added.status],
    ['+64 us', '+293 us', "4.6x floor's", '<= 2x', 'missed'],
  );
  assert.deepEqual([rps.ratio, rps.goal, rps.status], ['24% of floor', '>= 50%', 'missed']);
  assert.deepEqual([cpu.floor, cpu.gateway, cpu.ratio, cpu.status], ['80', '300', '3.8x floor', 'missed']);
  assert.equal(ttfb.ratio, 'floor adds <= 0');
  assert.equal(ttfb.status, 'n/a');
  assert.equal(streamRps.status, 'invalid');
  assert.equal(streamCpu.ratio, '-');
  assert.match(renderFloorTable(rows).split('\n')[0], /switchyard \/ floor/);
});

test('autocannon latencies are too coarse to judge a multiple of the floor', () => {
  const r = run([
    m({ target: 'direct', measure: 'c1', p50Ms: 1 }),
    m({ target: 'floor', measure: 'c1', p50Ms: 2 }),
    m({ target: 'gateway', measure: 'c1', p50Ms: 2 }),
  ]);
  r.machine.loadgen = 'autocannon';
  const [added] = buildFloorRows(r, [{ id: 'passthrough', measures: ['c1'] }]);
  assert.equal(added.status, 'n/a');
  assert.match(added.goal, /not judged/);
});

test('parseArgs: quick, peer, floor, errors', () => {
  assert.equal(parseArgs([]).floor, true);
  assert.equal(parseArgs(['--no-floor']).floor, false);
  const q = parseArgs(['--quick', '--peer', 'portkey']);
  assert.equal(q.durationSec, 2);
  assert.equal(q.soakSec, 10);
  assert.equal(q.peer, 'portkey');
  assert.throws(() => parseArgs(['--peer', 'litellm']), /unknown peer/);
  assert.throws(() => parseArgs(['--soak']), /needs a value/);
  assert.deepEqual(parseArgs(['--only', 'a, b']).only, ['a', 'b']);
});

test('stats, VmRSS and autocannon narrowing', () => {
  assert.equal(percentile([1, 2, 3, 4], 50), 2);
  assert.equal(percentile([1, 2, 3, 4], 99), 4);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(parseVmRssMb('Name:\tnode\nVmRSS:\t  102400 kB\n'), 100);
  assert.equal(parseVmRssMb('Name: x'), undefined);
  const r = fromAutocannon({
    requests: { total: 100 },
    duration: 2,
    latency: { p50: 1.5, p99: 3 },
    non2xx: 1,
    errors: 2,
  });
  assert.deepEqual(r, { requests: 100, rps: 50, p50Ms: 1.5, p99Ms: 3, non2xx: 1, errors: 2 });
  assert.equal(fromAutocannon(null).requests, 0);
});

test('hotFunctions ranks self time and filters by url', () => {
  const p: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 } },
      { id: 2, callFrame: { functionName: 'hot', url: 'file:///repo/src/a.ts', lineNumber: 9 } },
      { id: 3, callFrame: { functionName: 'lib', url: 'file:///repo/node_modules/x.js', lineNumber: 0 } },
    ],
    samples: [2, 2, 3, 1],
    timeDeltas: [1000, 1000, 500, 500],
  };
  const ours = hotFunctions(p, '/repo', (u) => u.includes('/src/'));
  assert.deepEqual(ours, [{ name: 'hot', where: 'src/a.ts:10', selfMs: 2, share: 2 / 3 }]);
  assert.equal(hotFunctions(p, '/repo').length, 3);
});

test('parseStatTicks adds utime and stime even when the name has spaces', () => {
  const stat = '42 (node main) S 1 42 42 0 -1 4194560 1 0 0 0 150 25 0 0 20 0 11 0 100 1 1';
  assert.equal(parseStatTicks(stat), 175);
});

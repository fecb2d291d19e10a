// Runs every scenario against direct, floor, gateway and (optionally) peer targets back to back,
// then the streaming soak, and returns the raw measurements. Order within a measure is direct,
// floor, gateway, peer, so they share the machine's state as closely as a noisy box allows.
import { cpuMs } from './cpu.ts';
import type { Gateway } from './gateway.ts';
import type { LoadGenerator, LoadResult, RequestSpec } from './load/types.ts';
import type { Peer } from './peers/portkey.ts';
import type { RssSampler } from './rss.ts';
import { type Measure, SCENARIOS, type Scenario, SOAK_SCENARIO, type Target } from './scenarios.ts';
import { median } from './stats.ts';
import { measureTtfb } from './ttfb.ts';
import type { Measurement, RssFigures } from './types.ts';

export interface Stack {
  fakeUrl: string;
  /** The fake's CPU per request on direct runs is the cost of one plain Node HTTP hop, for scale. */
  fakePid?: number;
  /** The bare proxy of issue 32 (bench/floor-proxy.ts), or null with --no-floor. */
  floor: { url: string; pid: number } | null;
  gateway: Gateway;
  peer: Peer | null;
  gen: LoadGenerator;
  gatewayRss: RssSampler;
  peerRss: RssSampler | null;
}

export interface SuiteOptions {
  durationSec: number;
  warmupSec: number;
  soakSec: number;
  only: string[];
}

export interface SuiteResult {
  measurements: Measurement[];
  gatewayPeakC32Mb: number;
  peerPeakC32Mb: number | null;
}

const C32 = 32;

function targetsOf(s: Scenario, stack: Stack): Array<[Target, RequestSpec]> {
  const out: Array<[Target, RequestSpec]> = [['direct', s.direct(stack.fakeUrl)]];
  // the floor forwards whatever path it is sent to the fake, so the direct request is its request
  if (stack.floor) out.push(['floor', s.direct(stack.floor.url)]);
  out.push(['gateway', s.gateway(stack.gateway.url)]);
  if (stack.peer && s.peer && s.peerSpec)
    out.push(['peer', s.peerSpec(stack.peer.url, stack.peer.headers(stack.fakeUrl))]);
  return out;
}

/** One request first: a target that answers with an error is reported and left out of the run. */
async function probe(spec: RequestSpec): Promise<string | null> {
  try {
    const res = await fetch(spec.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...spec.headers },
      body: spec.body,
    });
    const text = await res.text();
    return res.status < 400 ? null : `HTTP ${res.status}: ${text.slice(0, 300)}`;
  } catch (err) {
    return String(err);
  }
}

function toMeasurement(scenario: string, target: Target, measure: Measure, r: LoadResult): Measurement {
  return {
    scenario,
    target,
    measure,
    requests: r.requests,
    rps: measure === 'c32' ? r.rps : 0,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    failures: r.non2xx + r.errors,
  };
}

export async function runSuite(stack: Stack, o: SuiteOptions, log: (s: string) => void): Promise<SuiteResult> {
  const measurements: Measurement[] = [];
  let gatewayPeak = 0;
  let peerPeak = 0;
  const samplerFor = (t: Target) => (t === 'gateway' ? stack.gatewayRss : t === 'peer' ? stack.peerRss : null);
  const loadC32 = async (t: Target, spec: RequestSpec, sec: number): Promise<LoadResult & { rssPeakMb?: number }> => {
    const sampler = samplerFor(t);
    const from = sampler?.now() ?? 0;
    const r = await stack.gen.run({ ...spec, connections: C32, durationSec: sec });
    if (!sampler) return r;
    sampler.sample();
    const peak = Math.max(0, ...sampler.between(from, Number.POSITIVE_INFINITY));
    if (t === 'gateway') gatewayPeak = Math.max(gatewayPeak, peak);
    else peerPeak = Math.max(peerPeak, peak);
    return { ...r, rssPeakMb: peak };
  };

  const chosen = SCENARIOS.filter((s) => o.only.length === 0 || o.only.includes(s.id));
  // JIT and lazy module loading settle before anything is measured, so the first scenario is not
  // penalized for coming first
  for (const s of chosen)
    await stack.gen.run({ ...s.gateway(stack.gateway.url), connections: C32, durationSec: o.warmupSec });
  for (const s of chosen) {
    const targets: Array<[Target, RequestSpec]> = [];
    for (const [t, spec] of targetsOf(s, stack)) {
      const problem = await probe(spec);
      if (problem) log(`  ${s.id} / ${t}: skipped, ${problem}`);
      else targets.push([t, spec]);
    }
    for (const [t, spec] of targets) await loadC32(t, spec, o.warmupSec);
    for (const m of s.measures) {
      for (const [t, spec] of targets) {
        const pid = pidOf(t, stack);
        const cpuBefore = pid === undefined ? undefined : cpuMs(pid);
        let rec: Measurement;
        if (m === 'ttfb') {
          const r = await measureTtfb(spec, o.durationSec);
          rec = { scenario: s.id, target: t, measure: m, requests: r.requests, rps: 0, ...pick(r), failures: r.errors };
        } else if (m === 'c32') {
          const r = await loadC32(t, spec, o.durationSec);
          rec = toMeasurement(s.id, t, m, r);
          if (r.rssPeakMb !== undefined) rec.rssPeakMb = r.rssPeakMb;
        } else
          rec = toMeasurement(s.id, t, m, await stack.gen.run({ ...spec, connections: 1, durationSec: o.durationSec }));
        const cpuAfter = pid === undefined ? undefined : cpuMs(pid);
        if (cpuBefore !== undefined && cpuAfter !== undefined && rec.requests > 0)
          rec.cpuUsPerReq = ((cpuAfter - cpuBefore) * 1000) / rec.requests;
        measurements.push(rec);
        log(`  ${s.id} ${m} ${t}: ${describe(rec)}`);
      }
    }
  }
  return { measurements, gatewayPeakC32Mb: gatewayPeak, peerPeakC32Mb: stack.peer ? peerPeak : null };
}

/** The process whose CPU a run of this target is charged: the fake's on direct runs. */
function pidOf(t: Target, stack: Stack): number | undefined {
  if (t === 'gateway') return stack.gateway.proc.pid;
  if (t === 'peer') return stack.peer?.proc.pid;
  if (t === 'floor') return stack.floor?.pid;
  return stack.fakePid;
}

function pick(r: { p50Ms: number; p99Ms: number }) {
  return { p50Ms: r.p50Ms, p99Ms: r.p99Ms };
}

function describe(m: Measurement): string {
  const lat = `p50 ${m.p50Ms.toFixed(3)} ms, p99 ${m.p99Ms.toFixed(3)} ms`;
  const fail = `${m.failures > 0 ? `, ${m.failures} failed` : ''}${m.cpuUsPerReq === undefined ? '' : `, ${m.cpuUsPerReq.toFixed(0)} us CPU/req`}`;
  const rss = m.rssPeakMb === undefined ? '' : `, RSS peak ${m.rssPeakMb.toFixed(0)} MB`;
  return m.measure === 'c32'
    ? `${Math.round(m.rps)} rps, ${lat}${fail}${rss}`
    : `${lat} (${m.requests} requests${fail})`;
}

/**
 * Seconds without calls before the at-rest sample: V8 judges the allocation rate over ~5 s, and
 * `serve` collects after a whole quiet 5 s period, up to three times (src/cli/idle-heap.ts).
 */
const REST_SEC = 25;

/** Sustained streaming through the gateway; RSS at the start and end of it says whether memory is flat. */
export async function runSoak(
  stack: Stack,
  o: SuiteOptions,
  idleMb: number,
  log: (s: string) => void,
): Promise<RssFigures> {
  const s = SCENARIOS.find((x) => x.id === SOAK_SCENARIO);
  if (!s) throw new Error(`no soak scenario ${SOAK_SCENARIO}`);
  const sampler = stack.gatewayRss;
  log(`  soak: ${o.soakSec} s of streaming at c=${C32} through the gateway`);
  const from = sampler.now();
  const r = await stack.gen.run({ ...s.gateway(stack.gateway.url), connections: C32, durationSec: o.soakSec });
  const to = sampler.now();
  // a window long enough to smooth GC saw-teeth, short enough to be "the start" of a 60 s soak
  const w = Math.max(1000, Math.min(5000, ((to - from) / 6) | 0));
  log(`  rest: ${REST_SEC} s without calls`);
  await new Promise((resolve) => setTimeout(resolve, REST_SEC * 1000));
  const rested = sampler.now();
  return {
    restMb: median(sampler.between(rested - 2000, rested + 1)),
    idleMb,
    peakC32Mb: 0,
    soakStartMb: median(sampler.between(from, from + w)),
    soakEndMb: median(sampler.between(to - w, to + 1)),
    // the heap grows in saw-teeth of tens of MB between major collections; a third of the soak
    // spans at least one collection, so its lowest sample is the live set
    soakStartFloorMb: Math.min(...sampler.between(from, from + (to - from) / 3)),
    soakEndFloorMb: Math.min(...sampler.between(to - (to - from) / 3, to + 1)),
    soakSec: o.soakSec,
    soakRequests: r.requests,
    soakFailures: r.non2xx + r.errors,
  };
}

// Before/after on one machine in one run: this checkout's gateway against another checkout's
// (`--base <dir>`, e.g. a `git worktree` of the previous commit), both on the same fake upstream,
// measured alternately round after round so drift in machine load hits both alike. Reports CPU per
// request and RPS at c=32 per scenario, with after/before ratios.
//
//   git worktree add ../base <commit> && (cd ../base && npm ci && npm run build)
//   npm run bench:compare -- --base ../base [--rounds 5] [--duration 5] [--only passthrough,embeddings]
//     [--limits]       this checkout's gateway gets an org budget and rate limits (rpm, concurrency) on
//                      the bench key, none of which refuses: the cost of checking them on every call
//     [--webhooks 3]   this checkout's gateway gets 3 endpoints subscribed to every event (a local
//                      receiver answering 204), and both get the same management writes (an API key
//                      created every 250 ms) while they are measured, so events flow during the load
//     [--guardrails]   this checkout's gateway gets an org guardrail policy (enforce; output pii mask on
//                      email, credit_card and secret, one input check) that never matches the bench's text:
//                      the cost of scanning every call and every streamed delta
//     [--chunks 73]    streams cut into this many deltas instead of 20 (the fake caps it at the answer's
//                      73 characters), for the marginal cost of a delta
//     [--pace 1]       the fake waits this many ms between stream records, so each delta arrives in its
//                      own read as from a real model (the default sends a stream's records at once)
//     [--ttfb]         also time the first body byte at c=1 (streaming scenarios), alternated the same way
//     [--no-build]     this checkout's dist/ is used as it is (comparing two prepared copies)
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuMs } from './cpu.ts';
import { applyGuardrails, applyLimits, startWebhookLoad } from './feature-load.ts';
import { type Gateway, startGateway } from './gateway.ts';
import { autocannonGenerator } from './load/autocannon.ts';
import type { RequestSpec } from './load/types.ts';
import { SCENARIOS, type Scenario } from './scenarios.ts';
import { ROOT, startFake } from './stack.ts';
import { measureTtfb } from './ttfb.ts';

interface Sample {
  cpuUsPerReq: number;
  rps: number;
  failed: number;
  /** p50 time to the first body byte at c=1, ms (with --ttfb, streaming scenarios). */
  ttfbMs?: number;
}

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    only: { type: 'string' },
    webhooks: { type: 'string', default: '0' },
    limits: { type: 'boolean', default: false },
    guardrails: { type: 'boolean', default: false },
    chunks: { type: 'string' },
    pace: { type: 'string' },
    ttfb: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
  },
});
if (!values.base)
  throw new Error('usage: npm run bench:compare -- --base <other checkout> [--rounds n] [--duration s] [--only ids]');
const baseRoot = resolve(values.base);
const rounds = Number(values.rounds);
const durationSec = Number(values.duration);
const only = values.only?.split(',');
const scenarios = SCENARIOS.filter((s) => !only || only.includes(s.id)).filter((s) => s.measures.includes('c32'));

if (!values['no-build']) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
const fake = await startFake();
const gateways: Record<'before' | 'after', Gateway> = {
  before: await startGateway({ fakeUrl: fake.url, root: baseRoot }),
  after: await startGateway({ fakeUrl: fake.url }),
};
const load = autocannonGenerator();
const hooks = await startWebhookLoad(Number(values.webhooks), gateways);
if (values.limits) await applyLimits(gateways.after);
if (values.guardrails) await applyGuardrails(gateways.after);

/** The scenario's gateway request, its streams cut into `--chunks` deltas and paced by `--pace` when given. */
function specOf(scenario: Scenario, url: string): RequestSpec {
  const spec = scenario.gateway(url);
  if (!values.chunks && !values.pace) return spec;
  const chunks = `chunks-${Number(values.chunks ?? 20)}${values.pace ? `-pace-${Number(values.pace)}` : ''}`;
  return { ...spec, body: spec.body.replaceAll('chunks-20', chunks) };
}

/**
 * One streamed answer read whole: its SSE data events, those carrying answer text, and whether any
 * guardrail verdict was reported (the bench's text must not trip the policy, or a rewrite is measured).
 */
async function streamShape(spec: RequestSpec): Promise<string> {
  const res = await fetch(spec.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...spec.headers },
    body: spec.body,
  });
  const body = await res.text();
  const data = body.split('\n').filter((l) => l.startsWith('data:') && !l.includes('[DONE]'));
  const text = data.filter(
    (l) => (l.includes('"content":"') && !l.includes('"content":""')) || l.includes('"text_delta"'),
  );
  const verdicts = res.headers.get('x-svc-guardrails');
  return `${data.length} data events, ${text.length} with text${verdicts ? `, verdicts: ${verdicts}` : ''}`;
}

async function measure(gw: Gateway, scenarioId: string): Promise<Sample> {
  const scenario = SCENARIOS.find((s) => s.id === scenarioId);
  if (!scenario) throw new Error(`unknown scenario ${scenarioId}`);
  const pid = gw.proc.pid;
  const before = cpuMs(pid) ?? 0;
  const r = await load.run({ ...specOf(scenario, gw.url), connections: 32, durationSec });
  const after = cpuMs(pid) ?? 0;
  const sample = {
    cpuUsPerReq: ((after - before) * 1000) / Math.max(1, r.requests),
    rps: r.rps,
    failed: r.non2xx + r.errors,
  };
  if (!values.ttfb || !scenario.measures.includes('ttfb')) return sample;
  const t = await measureTtfb(specOf(scenario, gw.url), Math.min(durationSec, 3));
  return { ...sample, ttfbMs: t.p50Ms, failed: sample.failed + t.errors };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const rows: string[] = [];
const shapes: string[] = [];
try {
  for (const s of scenarios) {
    if (s.measures.includes('ttfb')) {
      for (const side of ['before', 'after'] as const)
        shapes.push(`${s.id} ${side}: ${await streamShape(specOf(s, gateways[side].url))}`);
    }
    const got: Record<'before' | 'after', Sample[]> = { before: [], after: [] };
    // One unrecorded run each so both have warm JITs and pools.
    await measure(gateways.before, s.id);
    await measure(gateways.after, s.id);
    for (let i = 0; i < rounds; i++) {
      for (const side of ['before', 'after'] as const) got[side].push(await measure(gateways[side], s.id));
    }
    const cpu = {
      before: mean(got.before.map((x) => x.cpuUsPerReq)),
      after: mean(got.after.map((x) => x.cpuUsPerReq)),
    };
    const rps = { before: mean(got.before.map((x) => x.rps)), after: mean(got.after.map((x) => x.rps)) };
    const failed = [...got.before, ...got.after].reduce((a, x) => a + x.failed, 0);
    const ttfb = (side: 'before' | 'after') => {
      const xs = got[side].flatMap((x) => (x.ttfbMs === undefined ? [] : [x.ttfbMs * 1000]));
      return xs.length === 0 ? '-' : mean(xs).toFixed(0);
    };
    const row = `| ${s.id} | ${cpu.before.toFixed(0)} | ${cpu.after.toFixed(0)} | ${(cpu.after / cpu.before).toFixed(3)} | ${rps.before.toFixed(0)} | ${rps.after.toFixed(0)} | ${(rps.after / rps.before).toFixed(3)} | ${ttfb('before')} | ${ttfb('after')} | ${failed} |`;
    rows.push(row);
    console.log(row);
  }
} finally {
  await hooks?.stop();
  await gateways.before.stop();
  await gateways.after.stop();
  await fake.proc.stop();
}
console.log(
  `\n${rounds} alternated rounds of ${durationSec} s at c=32 per scenario (autocannon), before = ${baseRoot}\n`,
);
if (values.limits) console.log('after: an org budget and rpm/concurrency limits on the bench key');
if (values.guardrails)
  console.log('after: an org guardrail policy (output pii mask, email/credit_card/secret; input email)');
for (const line of shapes) console.log(`stream: ${line}`);
if (hooks) {
  console.log(
    `after: ${values.webhooks} webhook endpoints on '*'; ${hooks.received()} deliveries received during the run`,
  );
}
console.log(
  '| scenario | CPU/req before, us | after | ratio | RPS before | after | ratio | c=1 TTFB p50 before, us | after | failed |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);

// Semantic cache figures (issue 16), on one gateway and one fake upstream in their own processes:
//   hit:   latency at c=1 of a cached answer vs the same request sent straight to the fake, and RPS
//          at c=32 (autocannon);
//   miss:  a project with the cache on (local embedder, semantic mode) vs one with it off, every
//          request a new prompt, so each cached call is a full look-up + embed + write; latency at c=1
//          and gateway CPU per request.
// Rounds alternate between the variants so drift in machine load hits all alike. The c=1 client is a
// keep-alive undici client in this process with microsecond timing (autocannon reports whole ms).
//
//   node --import tsx bench/cache.ts [--rounds 5] [--requests 400] [--duration 5]
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Client } from 'undici';
import { seededRandom } from '../test/helpers/random.ts';
import { cpuMs } from './cpu.ts';
import { ADMIN_KEY, startGateway } from './gateway.ts';
import { autocannonGenerator } from './load/autocannon.ts';
import { makePrompter } from './prompts.ts';
import { ROOT, startFake } from './stack.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '400' },
    duration: { type: 'string', default: '5' },
  },
});
const rounds = Number(values.rounds);
const perRound = Number(values.requests);
const durationSec = Number(values.duration);

const PROMPT = 'Benchmark prompt: say something short about switchyards and trains.';
const SLOW = 'openai/gpt-4o-mini-slow-5';
const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: admin, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function projectKey(gw: string, name: string, cache: boolean): Promise<string> {
  const settings = cache ? { semantic_cache: { enabled: true, similarity_threshold: 0.95 } } : {};
  const p = await post(`${gw}/manage/v1/projects`, { name, settings });
  const k = await post(`${gw}/manage/v1/api-keys`, { name: `${name} key`, project_id: p.id });
  return k.key as string;
}

interface Variant {
  name: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
  body(i: number): string;
}

const chatBody = (model: string, content: string) => JSON.stringify({ model, messages: [{ role: 'user', content }] });

const hits = new Map<string, number>();

/** Sequential requests on one keep-alive connection; returns each latency in ms. */
async function c1(v: Variant, n: number, offset: number): Promise<number[]> {
  const client = new Client(v.origin, { pipelining: 1 });
  const out: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const res = await client.request({
        method: 'POST',
        path: v.path,
        headers: { 'content-type': 'application/json', ...v.headers },
        body: v.body(offset + i),
      });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`${v.name}: status ${res.statusCode}`);
      if (res.headers['x-svc-cache'] === 'HIT') hits.set(v.name, (hits.get(v.name) ?? 0) + 1);
      out.push(performance.now() - t);
    }
  } finally {
    await client.close();
  }
  return out;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
const fake = await startFake();
const gw = await startGateway({ fakeUrl: fake.url });
try {
  const hotKey = await projectKey(gw.url, 'cache on', true);
  const coldKey = await projectKey(gw.url, 'cache off', false);
  // New prompts drawn from varied templates (the same generator as bench/cache-index.ts), one list
  // per pair of variants so the cache-on and cache-off calls send the same texts.
  const prompts = (seed: number) => {
    const next = makePrompter(seededRandom(seed));
    // Distinct texts only: a repeat would be an exact hit, not a miss.
    const seen = new Set<string>();
    while (seen.size < rounds * perRound + 100) seen.add(next());
    return [...seen];
  };
  const fresh = prompts(1);
  const freshSlow = prompts(2);
  const nth = (list: string[], i: number) => list[i % list.length];
  const variants: Variant[] = [
    {
      name: 'direct to the fake',
      origin: fake.url,
      path: '/openai/v1/chat/completions',
      headers: { authorization: 'Bearer sk-bench' },
      body: () => chatBody('gpt-4o-mini', PROMPT),
    },
    {
      name: 'gateway, cache hit',
      origin: gw.url,
      path: '/alpha/v1/chat/completions',
      headers: { authorization: `Bearer ${hotKey}` },
      body: () => chatBody('openai/gpt-4o-mini', PROMPT),
    },
    {
      name: 'gateway, cache off (new prompts)',
      origin: gw.url,
      path: '/alpha/v1/chat/completions',
      headers: { authorization: `Bearer ${coldKey}` },
      body: (i) => chatBody('openai/gpt-4o-mini', nth(fresh, i)),
    },
    {
      name: 'gateway, cache miss (new prompts)',
      origin: gw.url,
      path: '/alpha/v1/chat/completions',
      headers: { authorization: `Bearer ${hotKey}` },
      body: (i) => chatBody('openai/gpt-4o-mini', nth(fresh, i)),
    },
    // The same pair with an upstream that takes 5 ms, as any real one takes at least: the writes
    // batched behind the answers then run while calls wait on the upstream, not in front of the next.
    {
      name: 'gateway, cache off, 5 ms upstream',
      origin: gw.url,
      path: '/alpha/v1/chat/completions',
      headers: { authorization: `Bearer ${coldKey}` },
      body: (i) => chatBody(SLOW, nth(freshSlow, i)),
    },
    {
      name: 'gateway, cache miss, 5 ms upstream',
      origin: gw.url,
      path: '/alpha/v1/chat/completions',
      headers: { authorization: `Bearer ${hotKey}` },
      body: (i) => chatBody(SLOW, nth(freshSlow, i)),
    },
  ];
  // Stores the answer the hit variant is served, and warms every path.
  // Warm-up prompts come after the measured ones in each list, so none of them is measured again.
  for (const v of variants) await c1(v, 50, rounds * perRound);
  const lat = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const cpu = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const v of variants) {
      const before = cpuMs(gw.proc.pid) ?? 0;
      lat.get(v.name)?.push(...(await c1(v, perRound, r * perRound)));
      cpu.get(v.name)?.push((((cpuMs(gw.proc.pid) ?? 0) - before) * 1000) / perRound);
    }
  }
  const med = (name: string) => pct(lat.get(name) ?? [], 50);
  const direct = med('direct to the fake');
  console.log(`\n${rounds} alternated rounds of ${perRound} sequential requests (c=1) per variant`);
  console.log('| variant | p50 ms | p99 ms | p50 minus direct, ms | gateway CPU/req, us | cache hits |');
  console.log('|---|---|---|---|---|---|');
  for (const v of variants) {
    const xs = lat.get(v.name) ?? [];
    const cpus = cpu.get(v.name) ?? [];
    const c = v.origin === gw.url ? (cpus.reduce((a, b) => a + b, 0) / cpus.length).toFixed(0) : '-';
    console.log(
      `| ${v.name} | ${pct(xs, 50).toFixed(3)} | ${pct(xs, 99).toFixed(3)} | ${(pct(xs, 50) - direct).toFixed(3)} | ${c} | ${hits.get(v.name) ?? 0} |`,
    );
  }
  const missCost = med('gateway, cache miss (new prompts)') - med('gateway, cache off (new prompts)');
  console.log(`\nmiss cost (cache on minus off, p50): ${(missCost * 1000).toFixed(0)} us`);
  const slowCost = med('gateway, cache miss, 5 ms upstream') - med('gateway, cache off, 5 ms upstream');
  console.log(`miss cost with a 5 ms upstream (p50): ${(slowCost * 1000).toFixed(0)} us`);

  const load = autocannonGenerator();
  console.log(`\nc=32 for ${durationSec} s each (autocannon), alternated ${rounds} times`);
  const rps = { direct: [] as number[], hit: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const d = await load.run({
      url: `${fake.url}/openai/v1/chat/completions`,
      headers: { authorization: 'Bearer sk-bench', 'content-type': 'application/json' },
      body: chatBody('gpt-4o-mini', PROMPT),
      connections: 32,
      durationSec,
    });
    const h = await load.run({
      url: `${gw.url}/alpha/v1/chat/completions`,
      headers: { authorization: `Bearer ${hotKey}`, 'content-type': 'application/json' },
      body: chatBody('openai/gpt-4o-mini', PROMPT),
      connections: 32,
      durationSec,
    });
    if (h.non2xx + h.errors > 0) throw new Error(`hit run failed: ${h.non2xx} non-2xx, ${h.errors} errors`);
    rps.direct.push(d.rps);
    rps.hit.push(h.rps);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log('| target | RPS |');
  console.log('|---|---|');
  console.log(`| direct to the fake | ${mean(rps.direct).toFixed(0)} |`);
  console.log(`| gateway, cache hit | ${mean(rps.hit).toFixed(0)} |`);
} finally {
  await gw.stop();
  await fake.proc.stop();
}

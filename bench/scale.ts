// Scale-out figures for the README (issue 19): pass-through chat at c=32 (autocannon, in this
// process) against one gateway on SQLite, one on PostgreSQL + Redis, two instances on PostgreSQL +
// Redis (each driven by its own autocannon at c=16, RPS summed, as a load balancer would split it),
// and one gateway with SWITCHYARD_WORKERS=2. Rounds alternate between the variants. On a 2-core
// machine the load generator and the fake upstream share the cores with the gateways: the figures
// say what one machine gives, not how far more machines would go.
//
//   node --import tsx bench/scale.ts [--rounds 3] [--duration 5]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ADMIN_KEY, type Gateway, startGateway } from './gateway.ts';
import { autocannonGenerator } from './load/autocannon.ts';
import { startFake } from './stack.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, duration: { type: 'string', default: '5' } },
});
const rounds = Number(values.rounds);
const durationSec = Number(values.duration);
const PG = process.env.SWITCHYARD_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = process.env.SWITCHYARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const body = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hi' }] });
const load = autocannonGenerator();

async function dropSchema(schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
}

interface Variant {
  name: string;
  start(fakeUrl: string): Promise<Gateway[]>;
  cleanup?(): Promise<void>;
}

function shared(name: string, instances: number): Variant {
  const schema = `bench_scale_${instances}_${Date.now().toString(36)}`;
  const env = {
    SWITCHYARD_DATABASE_URL: PG,
    SWITCHYARD_DATABASE_SCHEMA: schema,
    SWITCHYARD_REDIS_URL: REDIS,
    SWITCHYARD_REDIS_PREFIX: schema,
    SWITCHYARD_MASTER_KEY: Buffer.alloc(32, 3).toString('base64'),
  };
  return {
    name,
    async start(fakeUrl) {
      const first = await startGateway({ fakeUrl, env });
      const rest = [];
      for (let i = 1; i < instances; i++) rest.push(await startGateway({ fakeUrl, env, noProviders: true }));
      return [first, ...rest];
    },
    cleanup: () => dropSchema(schema),
  };
}

const VARIANTS: Variant[] = [
  { name: '1 instance, SQLite', start: async (f) => [await startGateway({ fakeUrl: f })] },
  shared('1 instance, PostgreSQL + Redis', 1),
  shared('2 instances, PostgreSQL + Redis', 2),
  {
    name: '1 instance, SWITCHYARD_WORKERS=2, SQLite',
    start: async (f) => [await startGateway({ fakeUrl: f, env: { SWITCHYARD_WORKERS: '2' } })],
  },
];

async function measure(gws: Gateway[]): Promise<{ rps: number; p50: number; errors: number }> {
  const per = Math.max(1, Math.floor(32 / gws.length));
  const results = await Promise.all(
    gws.map((g) =>
      load.run({
        url: `${g.url}/alpha/v1/chat/completions`,
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        body,
        connections: per,
        durationSec,
      }),
    ),
  );
  return {
    rps: results.reduce((s, r) => s + r.rps, 0),
    p50: Math.max(...results.map((r) => r.p50Ms)),
    errors: results.reduce((s, r) => s + r.errors + r.non2xx, 0),
  };
}

const fake = await startFake();
const figures = new Map<string, number[]>();
try {
  for (let round = 0; round < rounds; round++) {
    for (const v of VARIANTS) {
      const gws = await v.start(fake.url);
      try {
        // A short warm-up: connections, JIT, the mirrors' first loads.
        await load.run({
          url: `${gws[0].url}/alpha/v1/chat/completions`,
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
          body,
          connections: 8,
          durationSec: 1,
        });
        const m = await measure(gws);
        if (m.errors > 0) throw new Error(`${v.name}: ${m.errors} failed requests`);
        figures.set(v.name, [...(figures.get(v.name) ?? []), m.rps]);
        console.error(`round ${round + 1}: ${v.name}: ${m.rps.toFixed(0)} rps (p50 ${m.p50} ms)`);
      } finally {
        for (const g of gws) await g.stop();
        await v.cleanup?.();
      }
    }
  }
} finally {
  await fake.proc.stop();
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `\n${rounds} alternated rounds, ${durationSec} s each at c=32 (autocannon and the fake upstream on the same 2 cores)`,
);
console.log('| setup | RPS (median) | rounds |\n|---|---|---|');
for (const [name, xs] of figures)
  console.log(`| ${name} | ${median(xs).toFixed(0)} | ${xs.map((x) => x.toFixed(0)).join(', ')} |`);

// Manual harness (not part of the suite): added latency of a pass-through chat call at concurrency 1,
// gateway vs direct to the fake upstream on loopback. Run: node --import tsx test/alpha/overhead.ts [n]
import { request } from 'undici';
import { startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { startGateway } from '../helpers/gateway.ts';
import { api } from '../helpers/proxy-env.ts';

const N = Number(process.argv[2] ?? 2000);
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });

async function timed(url: string, headers: Record<string, string>, payload: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < N + 200; i++) {
    const t = performance.now();
    const res = await request(url, { method: 'POST', headers, body: payload });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    if (i >= 200) out.push(performance.now() - t); // the first 200 warm up JIT and pools
  }
  return out.sort((a, b) => a - b);
}

const pct = (s: number[], p: number): number => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];

const fake = await startFakeUpstream({ port: 0, record: false });
const gw = await startGateway();
const key = 'sk-stored-0000000000000000';
await api(gw, 'POST', '/manage/v1/providers', {
  vendor: 'openai',
  api_key: key,
  base_url: `${fake.url}/openai/v1`,
  name: 'fake',
});
const json = { 'content-type': 'application/json' };
const direct = await timed(`${fake.url}/openai/v1/chat/completions`, { ...json, authorization: `Bearer ${key}` }, body);
const viaGw = await timed(
  `${gw.url}/alpha/v1/chat/completions`,
  { ...json, authorization: `Bearer ${gw.adminKey}` },
  body.replace('"gpt-4o-mini"', '"openai/gpt-4o-mini"'),
);
for (const p of [50, 99])
  console.log(
    `p${p}: direct ${pct(direct, p).toFixed(3)} ms, gateway ${pct(viaGw, p).toFixed(3)} ms, added ${(pct(viaGw, p) - pct(direct, p)).toFixed(3)} ms`,
  );
await gw.close();
await fake.close();

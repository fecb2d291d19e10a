// wrk driver: a generated Lua script sets the POST request and prints one JSON line in `done`,
// because wrk's own text report rounds latencies to two decimals of its chosen unit.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LoadGenerator, LoadResult, LoadSpec } from './types.ts';

const run = promisify(execFile);
const MARK = 'BENCHJSON ';

/** A Lua long string that cannot be closed by the text it quotes. */
export function luaLongString(text: string): string {
  let level = 1;
  while (text.includes(`]${'='.repeat(level)}]`)) level++;
  const eq = '='.repeat(level);
  return `[${eq}[${text}]${eq}]`;
}

export function wrkScript(spec: Pick<LoadSpec, 'headers' | 'body'>): string {
  const lines = ['wrk.method = "POST"', `wrk.body = ${luaLongString(spec.body)}`];
  for (const [k, v] of Object.entries({ 'content-type': 'application/json', ...spec.headers }))
    lines.push(`wrk.headers[ ${luaLongString(k)} ] = ${luaLongString(v)}`);
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    `  io.write(string.format('${MARK}{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,' ..`,
    `    '"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d}\\n',`,
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),',
    '    e.connect, e.read, e.write, e.timeout, e.status))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

interface WrkJson {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  status: number;
}

export function parseWrkOutput(stdout: string): LoadResult {
  const line = stdout.split('\n').find((l) => l.startsWith(MARK));
  if (!line) throw new Error(`wrk printed no result line:\n${stdout.slice(-2000)}`);
  const j = JSON.parse(line.slice(MARK.length)) as WrkJson;
  return {
    requests: j.requests,
    rps: j.duration_us > 0 ? j.requests / (j.duration_us / 1e6) : 0,
    p50Ms: j.p50_us / 1000,
    p99Ms: j.p99_us / 1000,
    non2xx: j.status,
    errors: j.connect + j.read + j.write + j.timeout,
  };
}

export function wrkGenerator(bin: string): LoadGenerator {
  return {
    name: 'wrk',
    async run(spec) {
      const dir = await mkdtemp(join(tmpdir(), 'sy-bench-wrk-'));
      const script = join(dir, 'req.lua');
      try {
        await writeFile(script, wrkScript(spec));
        // one thread: the machine's cores are better spent on the gateway and the fake
        const args = [
          '-t1',
          `-c${spec.connections}`,
          `-d${Math.max(1, Math.round(spec.durationSec))}s`,
          '--timeout',
          '10s',
          '-s',
          script,
          spec.url,
        ];
        const { stdout } = await run(bin, args, { maxBuffer: 1 << 20 });
        return parseWrkOutput(stdout);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

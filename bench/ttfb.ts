// Time to first body byte at one connection, which wrk cannot report: one keep-alive client
// sends requests back to back for a while and times each first chunk of the body.
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import type { RequestSpec } from './load/types.ts';
import { percentile } from './stats.ts';

export interface TtfbResult {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses that were not 2xx, or failed mid-way. */
  errors: number;
}

export async function measureTtfb(spec: RequestSpec, durationSec: number): Promise<TtfbResult> {
  const url = new URL(spec.url);
  const client = new Client(url.origin, { pipelining: 1 });
  const headers = { 'content-type': 'application/json', ...spec.headers };
  const samples: number[] = [];
  let errors = 0;
  const end = performance.now() + durationSec * 1000;
  try {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        const res = await client.request({ method: 'POST', path: url.pathname + url.search, headers, body: spec.body });
        let first = -1;
        for await (const _chunk of res.body) if (first < 0) first = performance.now() - t0;
        if (res.statusCode >= 400 || first < 0) errors++;
        else samples.push(first);
      } catch {
        errors++;
      }
    }
  } finally {
    await client.close();
  }
  samples.sort((a, b) => a - b);
  return { requests: samples.length + errors, p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99), errors };
}

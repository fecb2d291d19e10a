// autocannon fallback for machines without wrk. The package ships no types, so its result is
// read through narrowing instead of a declaration file.
import { createRequire } from 'node:module';
import type { LoadGenerator, LoadResult, LoadSpec } from './types.ts';

type Runner = (opts: Record<string, unknown>, cb: (err: unknown, result: unknown) => void) => unknown;

function num(obj: unknown, ...path: string[]): number {
  let cur: unknown = obj;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null) return 0;
    cur = (cur as Record<string, unknown>)[k];
  }
  return typeof cur === 'number' && Number.isFinite(cur) ? cur : 0;
}

export function fromAutocannon(result: unknown): LoadResult {
  const requests = num(result, 'requests', 'total');
  const seconds = num(result, 'duration');
  return {
    requests,
    rps: seconds > 0 ? requests / seconds : 0,
    p50Ms: num(result, 'latency', 'p50'),
    p99Ms: num(result, 'latency', 'p99'),
    non2xx: num(result, 'non2xx'),
    errors: num(result, 'errors') + num(result, 'timeouts'),
  };
}

export function autocannonGenerator(): LoadGenerator {
  const runner = createRequire(import.meta.url)('autocannon') as Runner;
  return {
    name: 'autocannon',
    run(spec: LoadSpec) {
      return new Promise((resolve, reject) => {
        runner(
          {
            url: spec.url,
            method: 'POST',
            headers: { 'content-type': 'application/json', ...spec.headers },
            body: spec.body,
            connections: spec.connections,
            duration: spec.durationSec,
            timeout: 10,
          },
          (err, result) => (err ? reject(err) : resolve(fromAutocannon(result))),
        );
      });
    },
  };
}

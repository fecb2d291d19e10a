// The shape every load generator (wrk, autocannon) is driven with and reports in, so that the
// runner never depends on which one the machine has.
export interface RequestSpec {
  url: string;
  headers: Record<string, string>;
  /** JSON text sent as a POST body. */
  body: string;
}

export interface LoadSpec extends RequestSpec {
  connections: number;
  durationSec: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses with a status of 400 or more. */
  non2xx: number;
  /** Socket-level failures: connect, read, write, timeout. */
  errors: number;
}

export interface LoadGenerator {
  name: string;
  run(spec: LoadSpec): Promise<LoadResult>;
}

// Live health per candidate (vendor/model), fed by every routed attempt: a circuit breaker that cools
// a repeatedly failing candidate down for a while, and a window of recent latencies for the p50 that
// latency_optimized ranks by. In memory per process: each instance learns from its own traffic.
import { BREAKER_DEFAULTS, Breaker, type BreakerOptions } from '../util/breaker.ts';
import { type CandidateRef, type HealthView, keyOf } from './types.ts';

export interface HealthOptions extends BreakerOptions {
  /** Latency samples older than this are ignored. */
  windowMs: number;
  /** Samples kept per candidate. */
  maxSamples: number;
}

const DEFAULTS: HealthOptions = { ...BREAKER_DEFAULTS, windowMs: 300_000, maxSamples: 50 };

export class HealthTracker implements HealthView {
  private readonly samples = new Map<string, Array<{ at: number; ms: number }>>();
  private readonly breaker: Breaker;
  private readonly opts: HealthOptions;
  /**
   * Provider credentials, by id: a key answering 401/403/429/5xx repeatedly cools down, and the
   * vendor's other credentials take its calls meanwhile.
   */
  readonly credentials: Breaker;

  constructor(opts: Partial<HealthOptions> = {}) {
    this.opts = { ...DEFAULTS, ...opts };
    this.breaker = new Breaker(this.opts);
    this.credentials = new Breaker(this.opts);
  }

  /** Records one finished attempt. Only failures that are the upstream's fault count against it. */
  record(ref: CandidateRef, ok: boolean, latencyMs: number, now: number = Date.now()): void {
    const key = keyOf(ref);
    if (!ok) {
      this.breaker.failure(key, now);
      return;
    }
    this.breaker.success(key);
    let list = this.samples.get(key);
    if (!list) {
      list = [];
      this.samples.set(key, list);
    }
    list.push({ at: now, ms: latencyMs });
    if (list.length > this.opts.maxSamples) list.shift();
  }

  coolingDown(ref: CandidateRef, now: number): boolean {
    return this.breaker.coolingDown(keyOf(ref), now);
  }

  p50(ref: CandidateRef, now: number): number | undefined {
    const list = this.samples.get(keyOf(ref));
    if (!list) return undefined;
    const recent = list.filter((s) => now - s.at <= this.opts.windowMs).map((s) => s.ms);
    if (recent.length === 0) return undefined;
    recent.sort((a, b) => a - b);
    const mid = recent.length >> 1;
    return recent.length % 2 === 1 ? recent[mid] : (recent[mid - 1] + recent[mid]) / 2;
  }

  /** Test hook: forget everything. */
  reset(): void {
    this.samples.clear();
    this.breaker.reset();
    this.credentials.reset();
  }
}

/** Whether a failure says something about the candidate's health (not about the request). */
export function countsAgainstHealth(status: number, kind: string): boolean {
  return status === 429 || status >= 500 || kind === 'timeout' || kind === 'network';
}

/** Whether a failure says something about the credential: its key refused, or its endpoint failing. */
export function countsAgainstCredential(status: number, kind: string): boolean {
  return status === 401 || status === 403 || countsAgainstHealth(status, kind);
}

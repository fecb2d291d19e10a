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

/**
 * One candidate's state. Found through vendor then model, so a call (whose ref is often built per
 * call) costs two map lookups and no string; `key` is the breaker's name for it, built once.
 */
interface Candidate {
  readonly key: string;
  /** The last `maxSamples` latencies as a ring: `at[i]` when sample i was taken, `ms[i]` its latency. */
  readonly at: Float64Array;
  readonly ms: Float64Array;
  /** Where the next sample goes. */
  next: number;
  size: number;
}

export class HealthTracker implements HealthView {
  private readonly candidates = new Map<string, Map<string, Candidate>>();
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

  private find(ref: CandidateRef): Candidate | undefined {
    return this.candidates.get(ref.vendor)?.get(ref.model);
  }

  private findOrAdd(ref: CandidateRef): Candidate {
    let models = this.candidates.get(ref.vendor);
    if (models === undefined) {
      models = new Map();
      this.candidates.set(ref.vendor, models);
    }
    let c = models.get(ref.model);
    if (c === undefined) {
      const n = Math.max(0, this.opts.maxSamples);
      c = { key: keyOf(ref), at: new Float64Array(n), ms: new Float64Array(n), next: 0, size: 0 };
      models.set(ref.model, c);
    }
    return c;
  }

  /** Records one finished attempt. Only failures that are the upstream's fault count against it. */
  record(ref: CandidateRef, ok: boolean, latencyMs: number, now: number = Date.now()): void {
    const c = this.findOrAdd(ref);
    if (!ok) {
      this.breaker.failure(c.key, now);
      return;
    }
    this.breaker.success(c.key);
    if (c.at.length === 0) return;
    c.at[c.next] = now;
    c.ms[c.next] = latencyMs;
    c.next = c.next + 1 === c.at.length ? 0 : c.next + 1;
    if (c.size < c.at.length) c.size++;
  }

  coolingDown(ref: CandidateRef, now: number): boolean {
    // A breaker only ever opens through record(), which added the candidate first.
    const c = this.find(ref);
    return c !== undefined && this.breaker.coolingDown(c.key, now);
  }

  p50(ref: CandidateRef, now: number): number | undefined {
    const c = this.find(ref);
    if (c === undefined) return undefined;
    const recent: number[] = [];
    for (let i = 0; i < c.size; i++) if (now - c.at[i] <= this.opts.windowMs) recent.push(c.ms[i]);
    if (recent.length === 0) return undefined;
    recent.sort((a, b) => a - b);
    const mid = recent.length >> 1;
    return recent.length % 2 === 1 ? recent[mid] : (recent[mid - 1] + recent[mid]) / 2;
  }

  /** Test hook: forget everything. */
  reset(): void {
    this.candidates.clear();
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

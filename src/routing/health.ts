// Live health per candidate (vendor/model), fed by every routed attempt: a circuit breaker that cools
// a repeatedly failing candidate down for a while, and a window of recent latencies for the p50 that
// latency_optimized ranks by. In memory per process: each instance learns from its own traffic.
import { type CandidateRef, type HealthView, keyOf } from './types.ts';

export interface HealthOptions {
  /** Consecutive failures that open the breaker. */
  failureThreshold: number;
  /** First cooldown; doubles on each failed probe up to maxCooldownMs. */
  cooldownMs: number;
  maxCooldownMs: number;
  /** Latency samples older than this are ignored. */
  windowMs: number;
  /** Samples kept per candidate. */
  maxSamples: number;
}

const DEFAULTS: HealthOptions = {
  failureThreshold: 3,
  cooldownMs: 30_000,
  maxCooldownMs: 300_000,
  windowMs: 300_000,
  maxSamples: 50,
};

interface Entry {
  consecutiveFailures: number;
  cooldownUntil: number;
  nextCooldownMs: number;
  samples: Array<{ at: number; ms: number }>;
}

export class HealthTracker implements HealthView {
  private readonly entries = new Map<string, Entry>();
  private readonly opts: HealthOptions;

  constructor(opts: Partial<HealthOptions> = {}) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  private entry(ref: CandidateRef): Entry {
    const key = keyOf(ref);
    let e = this.entries.get(key);
    if (!e) {
      e = { consecutiveFailures: 0, cooldownUntil: 0, nextCooldownMs: this.opts.cooldownMs, samples: [] };
      this.entries.set(key, e);
    }
    return e;
  }

  /** Records one finished attempt. Only failures that are the upstream's fault count against it. */
  record(ref: CandidateRef, ok: boolean, latencyMs: number, now: number = Date.now()): void {
    const e = this.entry(ref);
    if (ok) {
      e.consecutiveFailures = 0;
      e.cooldownUntil = 0;
      e.nextCooldownMs = this.opts.cooldownMs;
      e.samples.push({ at: now, ms: latencyMs });
      if (e.samples.length > this.opts.maxSamples) e.samples.shift();
      return;
    }
    e.consecutiveFailures++;
    if (e.consecutiveFailures >= this.opts.failureThreshold) {
      e.cooldownUntil = now + e.nextCooldownMs;
      e.nextCooldownMs = Math.min(e.nextCooldownMs * 2, this.opts.maxCooldownMs);
      // After the cooldown one probe is let through; its failure re-opens the breaker at once.
      e.consecutiveFailures = this.opts.failureThreshold - 1;
    }
  }

  coolingDown(ref: CandidateRef, now: number): boolean {
    const e = this.entries.get(keyOf(ref));
    return e !== undefined && e.cooldownUntil > now;
  }

  p50(ref: CandidateRef, now: number): number | undefined {
    const e = this.entries.get(keyOf(ref));
    if (!e) return undefined;
    const recent = e.samples.filter((s) => now - s.at <= this.opts.windowMs).map((s) => s.ms);
    if (recent.length === 0) return undefined;
    recent.sort((a, b) => a - b);
    const mid = recent.length >> 1;
    return recent.length % 2 === 1 ? recent[mid] : (recent[mid - 1] + recent[mid]) / 2;
  }

  /** Test hook: forget everything. */
  reset(): void {
    this.entries.clear();
  }
}

/** Whether a failure says something about the candidate's health (not about the request). */
export function countsAgainstHealth(status: number, kind: string): boolean {
  return status === 429 || status >= 500 || kind === 'timeout' || kind === 'network';
}

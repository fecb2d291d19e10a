// Once-claims in process memory: embedded mode, and the fallback while Redis is away. A claim holds
// until its time runs out; expired ones are swept as new ones arrive, so the map stays the size of
// the claims still alive.
import type { OnceClaims } from '../types.ts';

export class LocalClaims implements OnceClaims {
  readonly #until = new Map<string, number>();
  readonly #now: () => number;
  #nextSweep = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  claimOnce(key: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    if (now >= this.#nextSweep) this.#sweep(now);
    const until = this.#until.get(key);
    if (until !== undefined && until > now) return Promise.resolve(false);
    this.#until.set(key, now + ttlMs);
    return Promise.resolve(true);
  }

  #sweep(now: number): void {
    for (const [key, until] of this.#until) if (until <= now) this.#until.delete(key);
    this.#nextSweep = now + 60_000;
  }
}

// A circuit breaker per key: after `failureThreshold` failures in a row the key cools down for a
// while; the cooldown doubles each time the first call after it fails again, up to a ceiling, and
// one success closes the breaker. Used for routing candidates (vendor/model) and for provider
// credentials, each with its own instance.

export interface BreakerOptions {
  /** Consecutive failures that open the breaker. */
  failureThreshold: number;
  /** First cooldown; doubles on each failed probe up to maxCooldownMs. */
  cooldownMs: number;
  maxCooldownMs: number;
}

export const BREAKER_DEFAULTS: BreakerOptions = { failureThreshold: 3, cooldownMs: 30_000, maxCooldownMs: 300_000 };

interface State {
  consecutiveFailures: number;
  cooldownUntil: number;
  nextCooldownMs: number;
}

/**
 * Called when a key's breaker opens (`coolingDown` true, first cooldown of a failure streak) and
 * when a success closes it again; repeated cooldowns within one streak are not transitions.
 */
export type BreakerListener = (key: string, coolingDown: boolean, cooldownUntil: number) => void;

export class Breaker {
  readonly #states = new Map<string, State>();
  readonly #opts: BreakerOptions;
  #listener: BreakerListener | undefined;

  constructor(opts: Partial<BreakerOptions> = {}) {
    this.#opts = { ...BREAKER_DEFAULTS, ...opts };
  }

  /** One listener (the webhooks feature); a breaker nobody listens to pays one undefined check. */
  onTransition(listener: BreakerListener | undefined): void {
    this.#listener = listener;
  }

  success(key: string): void {
    const s = this.#states.get(key);
    if (s === undefined) return;
    this.#states.delete(key);
    if (s.cooldownUntil > 0) this.#listener?.(key, false, 0);
  }

  failure(key: string, now: number = Date.now()): void {
    let s = this.#states.get(key);
    if (!s) {
      s = { consecutiveFailures: 0, cooldownUntil: 0, nextCooldownMs: this.#opts.cooldownMs };
      this.#states.set(key, s);
    }
    s.consecutiveFailures++;
    if (s.consecutiveFailures >= this.#opts.failureThreshold) {
      const opened = s.cooldownUntil === 0;
      s.cooldownUntil = now + s.nextCooldownMs;
      s.nextCooldownMs = Math.min(s.nextCooldownMs * 2, this.#opts.maxCooldownMs);
      // After the cooldown one probe is let through; its failure re-opens the breaker at once.
      s.consecutiveFailures = this.#opts.failureThreshold - 1;
      if (opened) this.#listener?.(key, true, s.cooldownUntil);
    }
  }

  coolingDown(key: string, now: number): boolean {
    const s = this.#states.get(key);
    return s !== undefined && s.cooldownUntil > now;
  }

  /** When the key's cooldown ends (0 when it is not cooling down). */
  cooldownEnds(key: string): number {
    return this.#states.get(key)?.cooldownUntil ?? 0;
  }

  reset(): void {
    this.#states.clear();
  }
}

// The per-org cap on batch items in flight in this instance, shared fairly between the org's
// projects. Two rules keep one project's batches from starving another's:
// - a project never holds more than three quarters of the slots (at least one stays free for the
//   others), because items that hang hold their slot until the upstream deadline, minutes away;
// - while another project waits, a project at or above its fair share (slots / active projects)
//   takes no new slot, and a freed slot goes to the waiting project that holds the fewest.
// Within a project, waiters are served in arrival order.
export class FairSlots {
  readonly #total: number;
  readonly #maxPerKey: number;
  #free: number;
  readonly #held = new Map<string, number>();
  readonly #waiting = new Map<string, Array<() => void>>();

  constructor(slots: number) {
    this.#total = Math.max(1, Math.floor(slots));
    this.#maxPerKey = this.#total === 1 ? 1 : this.#total - Math.ceil(this.#total / 4);
    this.#free = this.#total;
  }

  /** Slots `key` holds now. */
  held(key: string): number {
    return this.#held.get(key) ?? 0;
  }

  acquire(key: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.#waiting.get(key);
      if (queue) queue.push(resolve);
      else this.#waiting.set(key, [resolve]);
      this.#dispatch();
    });
  }

  release(key: string): void {
    const n = this.held(key) - 1;
    if (n > 0) this.#held.set(key, n);
    else this.#held.delete(key);
    this.#free++;
    this.#dispatch();
  }

  #active(): number {
    const keys = new Set([...this.#held.keys(), ...this.#waiting.keys()]);
    return Math.max(1, keys.size);
  }

  #mayTake(key: string, contested: boolean): boolean {
    const held = this.held(key);
    if (held >= this.#maxPerKey) return false;
    return !contested || held < Math.ceil(this.#total / this.#active());
  }

  #dispatch(): void {
    while (this.#free > 0) {
      const contested = this.#waiting.size > 1;
      let next: string | undefined;
      for (const key of this.#waiting.keys()) {
        if (!this.#mayTake(key, contested)) continue;
        if (next === undefined || this.held(key) < this.held(next)) next = key;
      }
      if (next === undefined) return;
      const queue = this.#waiting.get(next) ?? [];
      const resolve = queue.shift();
      if (queue.length === 0) this.#waiting.delete(next);
      if (resolve === undefined) continue;
      this.#free--;
      this.#held.set(next, this.held(next) + 1);
      resolve();
    }
  }
}

// A best-effort stream of small observations shared by every instance (health and latency samples):
// items published here are batched (one Redis message per `flushMs`) and every other instance under
// the same prefix hears them. Nothing waits on it and nothing is retried: a batch lost in an outage
// only means the other instances learn from their own traffic for a while, as a single one would.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRedisClient } from './client.ts';

export interface RedisFeedOptions {
  url: string;
  /** The channel is `<keyPrefix><name>`. */
  keyPrefix: string;
  name: string;
  flushMs?: number;
  /** Items per message at most; a busier instance sends several. */
  maxBatch?: number;
}

export class RedisFeed<T> {
  readonly #pub: Redis;
  readonly #sub: Redis;
  readonly #channel: string;
  readonly #from = randomUUID();
  readonly #flushMs: number;
  readonly #maxBatch: number;
  readonly #handlers: Array<(items: T[]) => void> = [];
  #pending: T[] = [];
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(opts: RedisFeedOptions) {
    this.#channel = `${opts.keyPrefix}${opts.name}`;
    this.#flushMs = opts.flushMs ?? 100;
    this.#maxBatch = opts.maxBatch ?? 500;
    this.#pub = createRedisClient(opts.url);
    this.#sub = createRedisClient(opts.url, { subscriber: true });
    this.#sub.on('ready', () => {
      this.#sub.subscribe(this.#channel).catch(() => {});
    });
    this.#sub.on('message', (channel: string, raw: string) => {
      if (channel !== this.#channel || this.#closed) return;
      let msg: { from?: unknown; items?: unknown };
      try {
        msg = JSON.parse(raw) as { from?: unknown; items?: unknown };
      } catch {
        return;
      }
      if (msg.from === this.#from || !Array.isArray(msg.items)) return;
      for (const h of this.#handlers) h(msg.items as T[]);
    });
  }

  /** Queues an item for the next batch (no I/O here). */
  push(item: T): void {
    if (this.#closed) return;
    this.#pending.push(item);
    if (this.#pending.length >= this.#maxBatch) this.#flush();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#flush(), this.#flushMs);
      this.#timer.unref();
    }
  }

  /** Batches from the other instances (never this one's own). */
  onItems(handler: (items: T[]) => void): void {
    this.#handlers.push(handler);
  }

  #flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const items = this.#pending;
    this.#pending = [];
    if (items.length === 0 || this.#pub.status !== 'ready') return;
    this.#pub.publish(this.#channel, JSON.stringify({ from: this.#from, items })).catch(() => {});
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#flush();
    await Promise.all(
      [this.#pub, this.#sub].map((c) =>
        c.quit().then(
          () => {},
          () => c.disconnect(),
        ),
      ),
    );
  }
}

// The instances sharing one Redis prefix, as a sorted set of heartbeats (`<prefix>inst`: member the
// instance id, score when its entry lapses). While Redis is away an instance in `share` mode divides
// what was left of a limit by the count it last read here. An instance that died is still counted
// until its entry lapses, which only makes the shares smaller; one that starts is counted from its
// first heartbeat.
import type { Redis } from 'ioredis';
import { LuaScript } from './client.ts';

const BEAT_LUA = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return redis.call('ZCARD', KEYS[1])
`;

export interface RegistryOptions {
  client: Redis;
  /** `<prefix>inst`. */
  key: string;
  instanceId: string;
  /** Between heartbeats (default 2 s); an entry lapses after three missed ones. */
  everyMs?: number;
  /** Runs each command (FailoverCounters passes its reply watch). */
  send?: <T>(p: Promise<T>) => Promise<T>;
}

export class InstanceRegistry {
  readonly #o: RegistryOptions;
  readonly #everyMs: number;
  readonly #beat = new LuaScript(BEAT_LUA);
  #alive = 0;
  #timer: NodeJS.Timeout | undefined;
  #beating = false;

  constructor(opts: RegistryOptions) {
    this.#o = opts;
    this.#everyMs = opts.everyMs ?? 2000;
  }

  /** Instances alive at the last heartbeat this one got an answer to; 0 before the first. */
  get alive(): number {
    return this.#alive;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.beat(), this.#everyMs);
    this.#timer.unref();
    void this.beat();
  }

  /** One heartbeat now (when connected); the answer updates `alive`. */
  async beat(): Promise<void> {
    if (this.#beating || this.#o.client.status !== 'ready') return;
    this.#beating = true;
    const now = Date.now();
    const send = this.#o.send ?? (<T>(p: Promise<T>) => p);
    try {
      const n = await send(
        this.#beat.run(
          this.#o.client,
          [this.#o.key],
          [now, now + 3 * this.#everyMs, this.#o.instanceId, 6 * this.#everyMs],
        ),
      );
      if (typeof n === 'number') this.#alive = n;
    } catch {
      // Redis away: the count heard last stands, which is what the outage is divided by.
    } finally {
      this.#beating = false;
    }
  }

  /** Stops the heartbeats and leaves the set (when Redis answers), so the others' shares grow at once. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#o.client.status !== 'ready') return;
    await Promise.race([
      this.#o.client.zrem(this.#o.key, this.#o.instanceId).catch(() => 0),
      new Promise((r) => setTimeout(r, 500).unref()),
    ]);
  }
}

// When a Redis that is still connected counts as away. A slow Redis, or a gateway whose event loop
// is late because the machine is busy, is not away: an admission waits for its answer, since
// answering it from this instance alone is what lets N instances admit N times a limit. Redis is
// away only once a command has waited `deadlineMs` and nothing at all has come back on the
// connection for as long: then no answer is coming soon.
//
// An answer that has already arrived must never be discarded as late, and on a busy loop timers run
// late, before the socket is read. So the verdict is taken twice: once in a setImmediate after the
// timer (after that turn's poll phase), and, if Redis still seems silent, confirmed only after one
// more whole turn of the loop, whose poll phase starts after the suspicion: whatever reached the
// socket while a long callback held the loop (between the first poll and the check) is read then.
import { performance } from 'node:perf_hooks';

interface Waiter {
  since: number;
  reject(err: Error): void;
}

export class RedisSilentError extends Error {
  constructor(ms: number) {
    super(`no answer from Redis for ${Math.round(ms)} ms`);
    this.name = 'RedisSilentError';
  }
}

export class ReplyWatch {
  readonly #deadlineMs: number;
  readonly #onSilent: (err: RedisSilentError) => void;
  /** In the order the commands were sent (one connection answers in that order). */
  readonly #waiting = new Set<Waiter>();
  #heardAt = performance.now();
  #timer: NodeJS.Timeout | undefined;
  #confirming = false;
  #stream: object | undefined;

  /** `onSilent` is told once per verdict; the commands waiting then have been rejected. */
  constructor(deadlineMs: number, onSilent: (err: RedisSilentError) => void) {
    this.#deadlineMs = deadlineMs;
    this.#onSilent = onSilent;
  }

  get deadlineMs(): number {
    return this.#deadlineMs;
  }

  /**
   * `p`'s outcome, or a RedisSilentError once Redis is judged away. The command itself goes on: an
   * answer arriving after the verdict is only taken as a sign of life.
   */
  watch<T>(p: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const w: Waiter = { since: performance.now(), reject };
      this.#waiting.add(w);
      if (this.#timer === undefined) this.#arm();
      p.then(
        (v) => {
          this.#heardAt = performance.now();
          if (this.#waiting.delete(w)) resolve(v);
        },
        (err: unknown) => {
          // An error reply is an answer too; a connection error is not.
          if (err instanceof Error && err.name === 'ReplyError') this.#heardAt = performance.now();
          if (this.#waiting.delete(w)) reject(err);
        },
      );
    });
  }

  /** Any bytes from Redis are a sign of life, whichever command they answer (NOSCRIPT included). */
  listen(stream: { on(event: 'data', listener: () => void): unknown } | undefined): void {
    if (stream === undefined || this.#stream === stream) return;
    this.#stream = stream;
    stream.on('data', () => {
      this.#heardAt = performance.now();
    });
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    this.#timer = setInterval(this.#tick, Math.max(20, this.#deadlineMs / 4));
    this.#timer.unref();
  }

  readonly #tick = (): void => {
    if (this.#waiting.size === 0) {
      this.close();
      return;
    }
    setImmediate(this.#judge);
  };

  /** Whether the oldest command has waited, and Redis been silent, for the deadline. */
  #silent(): number | undefined {
    const oldest = this.#waiting.values().next();
    if (oldest.done === true) return undefined;
    const now = performance.now();
    const silent = now - this.#heardAt;
    return now - oldest.value.since < this.#deadlineMs || silent < this.#deadlineMs ? undefined : silent;
  }

  readonly #judge = (): void => {
    if (this.#confirming || this.#silent() === undefined) return;
    this.#confirming = true;
    setTimeout(() => setImmediate(this.#confirm), 0).unref();
  };

  readonly #confirm = (): void => {
    this.#confirming = false;
    const silent = this.#silent();
    if (silent === undefined) return;
    const err = new RedisSilentError(silent);
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const w of waiting) w.reject(err);
    this.#onSilent(err);
  };
}

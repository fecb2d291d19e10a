// A call's abort state on the proxy path. Node makes each AbortSignal by giving a fresh object a new
// prototype, which leaves it a slow object with a Map of listeners: on Node 20 a controller costs
// 3.6-5.1 us, and a listener added and removed 2-3 us more. Replacing them cut CPU per pass-through
// call by 14% (BENCHMARKS.md, session 19), the rest of it garbage-collector work. Most calls are never
// aborted, and none hands its signal to an API that needs a real one (fetch, AbortSignal.any: the
// type checker would refuse a CallSignal there), so the proxy path carries this cell instead.
import type { CallSignal } from '../ir/call-signal.ts';

/** A one-shot abort cell: listeners run once, in the order they were added, when abort() is called. */
export class CallAbort implements CallSignal {
  #aborted = false;
  #reason: unknown;
  #listeners: Array<() => void> | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** Like AbortSignal's: a listener added after the abort never runs. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.#aborted) return;
    if (this.#listeners === undefined) this.#listeners = [listener];
    else this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    const at = listeners.indexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
  }

  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener();
      } catch (err) {
        // As with an AbortSignal's listener: the error surfaces as uncaught, the other listeners still run.
        process.nextTick(() => {
          throw err;
        });
      }
    }
  }
}

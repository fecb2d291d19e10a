// The in-process ChangeBus: publish calls every subscriber of the topic and resolves when all of
// them are done, so a store write that awaits publish returns only after every live mirror of this
// process has applied it. One failing subscriber never keeps the others from the event, and never
// fails the publish: the write is committed either way, and the periodic poll repairs a mirror that
// missed it. Failures go to `onError`.
import type { ChangeBus, ChangeEvent, ChangeTopic } from '../../ports/change-bus.ts';

type Handler = (ev: ChangeEvent) => void | Promise<void>;

export interface LocalChangeBusOptions {
  /** Called once per failed subscriber call (the publish itself still resolves). */
  onError?: (err: unknown, ev: ChangeEvent) => void;
}

export class LocalChangeBus implements ChangeBus {
  readonly #handlers = new Map<ChangeTopic, Set<Handler>>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #onError: (err: unknown, ev: ChangeEvent) => void;
  #closed = false;

  constructor(opts: LocalChangeBusOptions = {}) {
    this.#onError = opts.onError ?? (() => {});
  }

  publish(ev: ChangeEvent): Promise<void> {
    if (this.#closed) return Promise.resolve();
    // A snapshot: a handler that subscribes or unsubscribes during delivery does not change this event's set.
    const handlers = [...(this.#handlers.get(ev.topic) ?? [])];
    if (handlers.length === 0) return Promise.resolve();
    const done = this.#deliver(handlers, ev);
    this.#inFlight.add(done);
    return done.finally(() => this.#inFlight.delete(done));
  }

  async #deliver(handlers: Handler[], ev: ChangeEvent): Promise<void> {
    // `async` turns a synchronous throw into a rejection, so every handler is called either way.
    const results = await Promise.allSettled(handlers.map(async (h) => h(ev)));
    for (const r of results) {
      if (r.status === 'rejected') {
        try {
          this.#onError(r.reason, ev);
        } catch {
          // A broken error reporter must not fail the publish either.
        }
      }
    }
  }

  subscribe(topic: ChangeTopic, handler: Handler): () => void {
    let set = this.#handlers.get(topic);
    if (!set) {
      set = new Set();
      this.#handlers.set(topic, set);
    }
    // Each subscription is its own entry, even for the same function twice.
    const entry: Handler = (ev) => handler(ev);
    set.add(entry);
    return () => {
      this.#handlers.get(topic)?.delete(entry);
    };
  }

  /** Never called: every event of this process reaches its subscribers, so there is no gap to repair. */
  onResume(_handler: () => void): () => void {
    return () => {};
  }

  /** Stops delivery: later publishes resolve at once; waits for deliveries already under way. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#handlers.clear();
    await Promise.allSettled([...this.#inFlight]);
  }
}

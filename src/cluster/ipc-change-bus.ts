// The change bus of a worker under `SWITCHYARD_WORKERS` without Redis: events are delivered in this
// process as by the local bus, and sent to the primary, which passes them to the other workers
// (worker-relay.ts); events the primary passes on are delivered here. As everywhere, an event only
// names what changed, and a lost one is repaired by the mirrors' periodic poll.
import type { ChangeBus, ChangeEvent, ChangeTopic } from '../ports/change-bus.ts';
import { LocalChangeBus, type LocalChangeBusOptions } from './local/change-bus.ts';
import { CHANGE_MESSAGE, type ChangeMessage, isChangeMessage } from './worker-relay.ts';

export class IpcChangeBus implements ChangeBus {
  readonly #local: LocalChangeBus;
  readonly #onMessage = (m: unknown): void => {
    if (isChangeMessage(m)) void this.#local.publish(m.event);
  };

  constructor(opts: LocalChangeBusOptions = {}) {
    this.#local = new LocalChangeBus(opts);
    process.on('message', this.#onMessage);
  }

  publish(ev: ChangeEvent): Promise<void> {
    if (process.connected && process.send !== undefined) {
      const m: ChangeMessage = { type: CHANGE_MESSAGE, event: ev };
      // A primary that is gone (shutdown) is no reason to fail a committed write.
      process.send(m, undefined, undefined, () => {});
    }
    return this.#local.publish(ev);
  }

  subscribe(topic: ChangeTopic, handler: (ev: ChangeEvent) => void | Promise<void>): () => void {
    return this.#local.subscribe(topic, handler);
  }

  /** Never called: a worker that starts late loads its mirrors after the events it did not hear. */
  onResume(handler: () => void): () => void {
    return this.#local.onResume(handler);
  }

  async close(): Promise<void> {
    process.off('message', this.#onMessage);
    await this.#local.close();
  }
}

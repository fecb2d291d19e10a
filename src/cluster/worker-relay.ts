// The primary of `SWITCHYARD_WORKERS` (cli/workers.ts) passes each change event one worker
// publishes on to every other worker, so that without Redis the workers of one machine still hear of
// each other's writes at once (ipc-change-bus.ts is the worker side).
import type { Worker } from 'node:cluster';
import type { ChangeEvent } from '../ports/change-bus.ts';

export const CHANGE_MESSAGE = 'switchyard:change';

export interface ChangeMessage {
  type: typeof CHANGE_MESSAGE;
  event: ChangeEvent;
}

export function isChangeMessage(m: unknown): m is ChangeMessage {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === CHANGE_MESSAGE;
}

export function relayChanges(from: Worker, all: () => Worker[]): void {
  from.on('message', (m: unknown) => {
    if (!isChangeMessage(m)) return;
    for (const w of all()) if (w !== from && w.isConnected()) w.send(m);
  });
}

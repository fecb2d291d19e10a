// Writing a long response in chunks (the NDJSON and CSV exports): back-pressure is waited for, and a
// client that went away stops the writer instead of letting chunks pile up in memory.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

/** Resolves false when the client went away instead of draining. */
export async function writeChunk(res: ServerResponse, chunk: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(chunk)) return true;
  const drained = once(res, 'drain').then(() => true);
  const closed = once(res, 'close').then(() => false);
  return Promise.race([drained, closed]);
}

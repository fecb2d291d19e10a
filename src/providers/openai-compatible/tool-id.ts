// Upstream tool-call ids are kept; a missing one gets a fresh id in the usual `call_` shape.
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function newToolCallId(): string {
  const bytes = randomBytes(24);
  let id = 'call_';
  for (const b of bytes) id += ALPHABET[b % ALPHABET.length];
  return id;
}

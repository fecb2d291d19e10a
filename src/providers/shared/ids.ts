// Ids the gateway makes up when an upstream sent none. They only need to be unique, not secret.
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `prefix` + random base62. */
export function randomId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

/** A tool call without an upstream id gets one in the usual `call_` shape, so results can be paired. */
export function newToolCallId(): string {
  return randomId('call_');
}

// Canonical JSON for cache keys: the same value always yields the same text, whatever order its keys
// were written in and whichever family decoded it. Keys are sorted by UTF-16 code unit (what
// Array.prototype.sort does, so no locale can change the order) and no whitespace is emitted.
//
// Only what JSON.stringify itself can produce is accepted: undefined object members are skipped and
// undefined array items become null (the same rule), so canonicalJson(v) parses back to JSON.parse of
// JSON.stringify(v) with sorted keys. Non-finite numbers throw: they would silently turn into null and
// make two different requests share a key.

import { hash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null || value === undefined) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      // JSON.stringify prints -0 as 0 and picks the shortest round-trip form: both are what we want.
      out.push(JSON.stringify(value));
      return;
    case 'object':
      if (Array.isArray(value)) {
        out.push('[');
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(',');
          write(value[i], out);
        }
        out.push(']');
        return;
      }
      writeObject(value as Record<string, unknown>, out);
      return;
    default:
      throw new TypeError(`canonicalJson: ${typeof value} is not JSON`);
  }
}

function writeObject(obj: Record<string, unknown>, out: string[]): void {
  out.push('{');
  let first = true;
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    write(v, out);
  }
  out.push('}');
}

/** Hex sha256 of a text (UTF-8): the one hash every cache key is made of. */
export function sha256Hex(text: string): string {
  // The one-shot form: a third of createHash().update().digest()'s cost on short texts, and every
  // cache look-up hashes three.
  return hash('sha256', text, 'hex');
}

// Minimal runtime narrowing for upstream JSON: upstream schemas are deliberately partial, so every
// read goes through these instead of trusting a cast.
import { randomBytes } from 'node:crypto';
import { isRecord } from '../../util/json.ts';

export type Rec = Record<string, unknown>;

export const isRec: (v: unknown) => v is Rec = isRecord;

export function rec(v: unknown): Rec {
  return isRec(v) ? v : {};
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random base62 string; ids only need to be unique, not secret. */
export function randomId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

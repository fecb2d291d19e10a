// Small narrowing and id helpers shared by the OpenAI-wire emulation.
import { randomBytes } from 'node:crypto';

export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random id with the vendor's prefix; the pool of random bytes is refilled rarely to keep ids cheap. */
let pool = randomBytes(4096);
let poolAt = 0;
export function newId(prefix: string, len = 24): string {
  if (poolAt + len > pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  let out = prefix;
  for (let i = 0; i < len; i++) out += ALPHABET[pool[poolAt++] % ALPHABET.length];
  return out;
}

/** FNV-1a, hex: stable ids derived from content (tool-call ids) so tests can assert them. */
export function hashHex(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  let g = h ^ 0x5bd1e995;
  for (let i = text.length - 1; i >= 0; i--) g = Math.imul(g ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(16).padStart(8, '0') + (g >>> 0).toString(16).padStart(8, '0');
}

export function nowSec(): number {
  return Math.floor(Date.now() / 1000);
}

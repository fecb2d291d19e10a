// JSON helpers for every layer: narrowing parsed JSON that nobody vouches for (upstream answers, caller
// bodies) without a cast at each read, and the JSON text columns of the store. The readers never
// coerce: a string "1" is not a number, and a wrong type reads as absent.
import type { JsonObject, JsonValue } from '../ir/types.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.ts';

export type UnknownRecord = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export function isRecord(v: unknown): v is UnknownRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object itself, or `{}` when `v` is not one, so nested reads need no checks. */
/** Whether an object has no own enumerable key (without building a keys array). */
export function isEmptyObject(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

export function asRecord(v: unknown): UnknownRecord {
  return isRecord(v) ? v : {};
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Finite numbers only. */
export function asNumber(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Values that came out of JSON.parse are JSON by construction; this only tells the compiler so. */
export function asJson(v: unknown): JsonValue {
  return v === undefined ? null : (v as JsonValue);
}

export function asJsonObject(v: unknown): JsonObject {
  return isRecord(v) ? (v as JsonObject) : {};
}

export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export type BoundedParse =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'too_large' | 'too_deep' | 'invalid'; message: string };

/**
 * JSON.parse for text from outside (batch input lines, uploaded files, upstream bodies) under the
 * same depth bound as request bodies, and optionally a size bound. V8 parses any depth, but every
 * recursive walk after that (JSON.stringify when the value is stored, estimators, codecs) overflows
 * the stack on a value nested thousands deep, so such text is refused before it is parsed.
 */
export function parseBoundedJson(text: string, maxChars = Number.POSITIVE_INFINITY): BoundedParse {
  if (text.length > maxChars)
    return { ok: false, reason: 'too_large', message: `longer than the ${maxChars} characters allowed` };
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH))
    return { ok: false, reason: 'too_deep', message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, reason: 'invalid', message: err instanceof Error ? err.message : 'not valid JSON' };
  }
}

/** JSON columns are stored as text on both dialects. */
export function toJsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export function fromJsonText(text: string | null | undefined): unknown {
  if (text === null || text === undefined || text === '') return null;
  const parsed = tryParseJson(text);
  return parsed.ok ? parsed.value : null;
}

/**
 * A copy of a JSON value with `fn` applied to each string in it. `key` is the member name the string
 * sits under: undefined for an array element or for the value itself.
 */
export function mapJsonStrings(
  v: JsonValue,
  fn: (s: string, key: string | undefined) => string,
  key?: string,
): JsonValue {
  if (typeof v === 'string') return fn(v, key);
  if (Array.isArray(v)) return v.map((x) => mapJsonStrings(x, fn));
  if (v === null || typeof v !== 'object') return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) out[k] = mapJsonStrings(x, fn, k);
  return out;
}

// Upstream bodies are untrusted JSON: these helpers narrow `unknown` without casts at every call site.
// Shared by the openai-compatible and anthropic adapters.
import type { JsonObject, JsonValue } from '../../ir/types.ts';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown): Obj {
  return isObj(v) ? v : {};
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

/** Values that came out of JSON.parse are JSON by construction; this only tells the compiler so. */
export function asJson(v: unknown): JsonValue {
  return v === undefined ? null : (v as JsonValue);
}

export function asJsonObject(v: unknown): JsonObject {
  return isObj(v) ? (v as JsonObject) : {};
}

export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** A credential's base URL overrides the vendor default; a trailing slash would double up in paths. */
export function baseUrlOr(baseUrl: string | null | undefined, fallback: string): string {
  return (baseUrl || fallback).replace(/\/+$/, '');
}

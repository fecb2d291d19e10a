// The project setting `settings.semantic_cache` (DESIGN §7 "Semantic cache"): parsed once when the
// project changes, never per call. Project settings are free-form JSON in the store, so this is the
// one place that says what the cache accepts; a refusal names the field so the management API can
// answer 400 with `param: "semantic_cache.<field>"`.
//
// Unknown keys are refused rather than ignored: a typo such as `similarity_treshold` would otherwise
// leave the default in force without anyone noticing.

import { isRecord } from '../util/json.ts';

export type CacheMode = 'semantic' | 'exact' | 'shadow';
export type CacheScope = 'project' | 'end_user';

export interface CacheSettings {
  enabled: boolean;
  /**
   * `exact`: only byte-for-byte identical canonical requests hit. `semantic`: exact tier first, then
   * nearest prompt embedding above the threshold. `shadow`: look up and record what would have hit,
   * but always call the upstream (to measure a threshold before trusting it).
   */
  mode: CacheMode;
  /** Cosine similarity a semantic neighbour needs to be served, in (0, 1]. */
  similarity_threshold: number;
  ttl_seconds: number;
  /** Requests whose temperature is above this skip the cache (unset temperature counts as 0). */
  max_temperature: number;
  /** Conversations longer than this skip the semantic tier (the exact tier still applies). */
  max_messages: number;
  /** `local`, `<vendor>/<embedding model>` or `@<config slug>`. */
  embedder: string;
  /** `end_user`: entries are shared only between calls naming the same end user. */
  scope: CacheScope;
  /** Per project; the oldest entries are evicted beyond it. */
  max_entries: number;
}

/** Where the setting lives in the project settings object, and the prefix of every field path. */
export const CACHE_SETTINGS_KEY = 'semantic_cache';

const DAY_SECONDS = 86_400;
export const MAX_TTL_SECONDS = 30 * DAY_SECONDS;
export const MAX_ENTRIES_LIMIT = 1_000_000;

/**
 * max_messages defaults to 1 (single-turn prompts only). The semantic tier embeds the whole
 * conversation, so a new question after a shared history is diluted by it: with an identical history
 * h times as long as the last turn, a completely different last question still scores about
 * h/(h+1) — 0.95 once the history is 19x the question, which one long assistant answer easily is
 * (eligibility.test.ts shows a 3-message case at 0.97 with the local embedder).
 * Single-turn prompts are where semantic reuse is both common (FAQ, classification, extraction) and
 * safe; multi-turn repeats still hit the exact tier. Projects with short turns can raise it.
 */
export const DEFAULT_CACHE_SETTINGS: Readonly<CacheSettings> = Object.freeze({
  enabled: false,
  mode: 'semantic',
  similarity_threshold: 0.95,
  ttl_seconds: 3600,
  max_temperature: 0.7,
  max_messages: 1,
  embedder: 'local',
  scope: 'project',
  max_entries: 10_000,
});

export type ParseResult = { ok: true; value: CacheSettings } | { ok: false; field: string; message: string };

/** A field's check: the parsed value, or a message saying what was expected. */
type FieldCheck<T> = (v: unknown) => { value: T } | { error: string };

const MODES: readonly CacheMode[] = ['semantic', 'exact', 'shadow'];
const SCOPES: readonly CacheScope[] = ['project', 'end_user'];

/** The offending value for a message, cut short: it echoes caller input back. */
function shown(v: unknown): string {
  const text = v === undefined ? 'undefined' : JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const oneOf =
  <T extends string>(values: readonly T[]): FieldCheck<T> =>
  (v) =>
    typeof v === 'string' && (values as readonly string[]).includes(v)
      ? { value: v as T }
      : { error: `expected one of ${values.map((x) => `"${x}"`).join(', ')}, got ${shown(v)}` };

const bool: FieldCheck<boolean> = (v) =>
  typeof v === 'boolean' ? { value: v } : { error: `expected a boolean, got ${shown(v)}` };

const integer =
  (min: number, max: number): FieldCheck<number> =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? { value: v }
      : { error: `expected an integer from ${min} to ${max}, got ${shown(v)}` };

/** A finite number in [min, max], or in (min, max] when minExclusive. */
function number(min: number, max: number, minExclusive = false): FieldCheck<number> {
  const range = minExclusive ? `above ${min} up to ${max}` : `from ${min} to ${max}`;
  return (v) =>
    typeof v === 'number' && Number.isFinite(v) && (minExclusive ? v > min : v >= min) && v <= max
      ? { value: v }
      : { error: `expected a number ${range}, got ${shown(v)}` };
}

// Same shapes as model names elsewhere: `<vendor>/<model>` (the model part may hold `/`, `:`, `.`,
// as bedrock ids do) and `@<config slug>` (routing/normalize.ts slug rule). Whether the vendor,
// model or slug exists is a runtime question: a config can be created after the setting.
const VENDOR_MODEL = /^[a-z0-9_-]+\/[^\s/][^\s]*$/;
const CONFIG_SLUG = /^@[a-z0-9][a-z0-9._-]{0,63}$/;

const embedder: FieldCheck<string> = (v) =>
  typeof v === 'string' && (v === 'local' || VENDOR_MODEL.test(v) || CONFIG_SLUG.test(v))
    ? { value: v }
    : { error: `expected "local", "<vendor>/<embedding model>" or "@<config slug>", got ${shown(v)}` };

const CHECKS: { [K in keyof CacheSettings]: FieldCheck<CacheSettings[K]> } = {
  enabled: bool,
  mode: oneOf(MODES),
  similarity_threshold: number(0, 1, true),
  ttl_seconds: integer(1, MAX_TTL_SECONDS),
  // The public temperature range (the widest of the two families).
  max_temperature: number(0, 2),
  max_messages: integer(1, Number.MAX_SAFE_INTEGER),
  embedder,
  scope: oneOf(SCOPES),
  max_entries: integer(1, MAX_ENTRIES_LIMIT),
};

const isField = (k: string): k is keyof CacheSettings => Object.hasOwn(CHECKS, k);

/**
 * Reads `settings.semantic_cache` as stored: undefined or null means "never configured" (the
 * defaults); every present key is checked and the missing ones take their default. A null member is
 * refused rather than read as "default": PATCH semantics are the management layer's business.
 */
export function parseCacheSettings(raw: unknown): ParseResult {
  if (raw === undefined || raw === null) return { ok: true, value: { ...DEFAULT_CACHE_SETTINGS } };
  if (!isRecord(raw)) return { ok: false, field: CACHE_SETTINGS_KEY, message: `expected an object, got ${shown(raw)}` };
  const value: CacheSettings = { ...DEFAULT_CACHE_SETTINGS };
  // Sorted so that with several bad keys the one named does not depend on the caller's key order.
  for (const key of Object.keys(raw).sort()) {
    const field = `${CACHE_SETTINGS_KEY}.${key}`;
    if (!isField(key)) {
      return { ok: false, field, message: `unknown setting; expected one of ${Object.keys(CHECKS).join(', ')}` };
    }
    const checked = (CHECKS[key] as FieldCheck<CacheSettings[typeof key]>)(raw[key]);
    if ('error' in checked) return { ok: false, field, message: checked.error };
    (value as Record<keyof CacheSettings, unknown>)[key] = checked.value;
  }
  return { ok: true, value };
}

/**
 * The tenant part of every key: the project, plus the end user when entries are per end user.
 * Undefined when the scope is `end_user` and the call names none: such a call cannot be attributed,
 * so it neither reads nor writes (sharing one anonymous bucket would defeat the scope's purpose).
 * Project ids hold no `:`, so the first `:` always separates the end user.
 */
export function cacheTenant(settings: CacheSettings, projectId: string, endUser: string | null): string | undefined {
  if (settings.scope === 'project') return projectId;
  if (endUser === null || endUser === '') return undefined;
  return `${projectId}:${endUser}`;
}

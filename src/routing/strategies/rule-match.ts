// Conditions of a `custom_rules` rule. Every condition present must hold (logical AND); a rule with no
// conditions always matches. Parsed once at compile time into a predicate over the request facts.
import { isRecord, positiveInt } from '../config-parse.ts';
import { needsImages, needsTools } from '../eligibility.ts';
import { ConfigError, type RequestFacts } from '../types.ts';

export type Condition = (facts: RequestFacts) => boolean;

function stringMap(v: unknown, field: string): Record<string, string[]> {
  if (!isRecord(v)) throw new ConfigError(field, 'expected an object of key -> value (or list of values)');
  const out: Record<string, string[]> = {};
  for (const [k, x] of Object.entries(v)) out[k] = stringList(x, `${field}.${k}`);
  return out;
}

function stringList(v: unknown, field: string): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new ConfigError(field, 'expected a string or an array of strings');
}

function flag(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw new ConfigError(field, 'expected a boolean');
  return v;
}

const KNOWN = [
  'tags',
  'end_user',
  'metadata',
  'min_tokens',
  'max_tokens',
  'has_tools',
  'has_images',
  'family',
  'headers',
];

export function parseConditions(v: unknown, field: string): Condition[] {
  if (v === undefined) return [];
  if (!isRecord(v)) throw new ConfigError(field, 'expected an object of conditions');
  const out: Condition[] = [];
  for (const key of Object.keys(v)) {
    if (!KNOWN.includes(key)) throw new ConfigError(`${field}.${key}`, `unknown condition; known: ${KNOWN.join(', ')}`);
  }
  if (v.tags !== undefined) {
    const want = stringMap(v.tags, `${field}.tags`);
    out.push((f) => Object.entries(want).every(([k, vals]) => f.tags[k] !== undefined && vals.includes(f.tags[k])));
  }
  if (v.end_user !== undefined) {
    const users = stringList(v.end_user, `${field}.end_user`);
    out.push((f) => f.endUser !== undefined && users.includes(f.endUser));
  }
  if (v.metadata !== undefined) {
    const want = stringMap(v.metadata, `${field}.metadata`);
    out.push((f) => Object.entries(want).every(([k, vals]) => vals.includes(String(f.metadata[k]))));
  }
  const min = positiveInt(v.min_tokens, `${field}.min_tokens`);
  if (min !== undefined) out.push((f) => f.estimatedTokens >= min);
  const max = positiveInt(v.max_tokens, `${field}.max_tokens`);
  if (max !== undefined) out.push((f) => f.estimatedTokens <= max);
  if (v.has_tools !== undefined) {
    const want = flag(v.has_tools, `${field}.has_tools`);
    out.push((f) => needsTools(f) === want);
  }
  if (v.has_images !== undefined) {
    const want = flag(v.has_images, `${field}.has_images`);
    out.push((f) => needsImages(f) === want);
  }
  if (v.family !== undefined) {
    const fams = stringList(v.family, `${field}.family`);
    out.push((f) => fams.includes(f.family));
  }
  if (v.headers !== undefined) {
    const want = stringMap(v.headers, `${field}.headers`);
    const lower = Object.entries(want).map(([k, vals]) => [k.toLowerCase(), vals] as const);
    out.push((f) => lower.every(([k, vals]) => f.headers[k] !== undefined && vals.includes(f.headers[k])));
  }
  return out;
}

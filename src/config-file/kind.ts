// One kind of resource the file declares: how to read what exists in the file's own terms (names,
// not ids), what a declaration means with its defaults filled in, and how to make a change through
// the management operations.
import { isRecord } from '../util/json.ts';
import type { ApplyContext } from './context.ts';

export type Decl = Record<string, unknown>;

export interface Existing {
  id: string;
  decl: Decl;
}

export interface Kind {
  /** The file's section. */
  section: 'providers' | 'projects' | 'api_keys' | 'routing_configs' | 'budgets' | 'webhooks' | 'guardrails';
  /** The audit resource type, which is also what the managed marker and the 409 name. */
  type: string;
  /** The field a declaration is matched by. */
  keyField: 'name' | 'slug' | 'url';
  /** Fields whose values are secrets: the plan says they change, never what to. */
  secretFields?: readonly string[];
  /** Fields that cannot change in place: a change deletes and re-creates the resource. */
  replaceFields?: readonly string[];
  /** What exists now, in file form; remembers each name's id in ctx. */
  read(ctx: ApplyContext): Promise<Existing[]>;
  /** The declaration as compared: defaults filled in, equivalent spellings made one. */
  normal(d: Decl): Decl;
  /** Narrows the current state to what the declaration speaks about (settings it leaves unset). */
  align?(current: Decl, desired: Decl): Decl;
  /** Whether an existing resource absent from the file may be deleted by `prune: true`. */
  prunable?(e: Existing, managed: boolean): boolean;
  create(ctx: ApplyContext, d: Decl): Promise<string>;
  update(ctx: ApplyContext, id: string, d: Decl, changed: readonly string[]): Promise<void>;
  remove(ctx: ApplyContext, id: string): Promise<void>;
}

/** Deep equality for JSON values, key order ignored. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameJson(a[k], b[k]));
  }
  return false;
}

export interface FieldChange {
  /** Dotted path inside the resource: `config.fallbacks[0].model`. */
  field: string;
  from: unknown;
  to: unknown;
}

/** Leaf-level differences, so a plan shows the one model that changed rather than the whole config. */
export function diffJson(from: unknown, to: unknown, path = ''): FieldChange[] {
  if (sameJson(from, to)) return [];
  if (isRecord(from) && isRecord(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])];
    return keys.flatMap((k) => diffJson(from[k], to[k], path === '' ? k : `${path}.${k}`));
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    return from.flatMap((x, i) => diffJson(x, to[i], `${path}[${i}]`));
  }
  return [{ field: path, from: from ?? null, to: to ?? null }];
}

/** The top-level field a change belongs to (what an update sends). */
export const topField = (field: string): string => field.split(/[.[]/)[0] ?? field;

export const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

/** Only the keys a declaration gives, for settings a file may leave to the gateway's defaults. */
export function picked(current: Decl, given: Decl): Decl {
  return Object.fromEntries(Object.keys(given).map((k) => [k, current[k] ?? null]));
}

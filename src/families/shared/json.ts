// Validating readers for a caller's request body: each takes the field path and answers 400 naming
// exactly which field was wrong. They never coerce (a string "1" is not a number). The plain narrowing
// helpers (isRecord, asString, ...) are in util/json.ts.
import { invalid } from '../../errors/gateway-error.ts';
import { isRecord } from '../../util/json.ts';

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function expectObject(value: unknown, path: string): Record<string, unknown> {
  if (!isRecord(value)) invalid(path, `expected an object, got ${describe(value)}`);
  return value;
}

export function expectArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) invalid(path, `expected an array, got ${describe(value)}`);
  return value;
}

export function expectString(value: unknown, path: string): string {
  if (typeof value !== 'string') invalid(path, `expected a string, got ${describe(value)}`);
  return value;
}

export function optString(value: unknown, path: string): string | undefined {
  return value === undefined || value === null ? undefined : expectString(value, path);
}

export function optBoolean(value: unknown, path: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') invalid(path, `expected a boolean, got ${describe(value)}`);
  return value;
}

export function optNumber(value: unknown, path: string, min?: number, max?: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid(path, `expected a number, got ${describe(value)}`);
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
    invalid(path, `must be between ${min ?? '-inf'} and ${max ?? 'inf'}, got ${value}`);
  }
  return value;
}

export function optInteger(value: unknown, path: string, min?: number, max?: number): number | undefined {
  const n = optNumber(value, path);
  if (n === undefined) return undefined;
  if (!Number.isInteger(n)) invalid(path, `expected an integer, got ${n}`);
  if (min !== undefined && n < min)
    invalid(path, max === undefined ? `must be >= ${min}, got ${n}` : range(min, max, n));
  if (max !== undefined && n > max) invalid(path, range(min, max, n));
  return n;
}

function range(min: number | undefined, max: number, n: number): string {
  return min === undefined ? `must be <= ${max}, got ${n}` : `must be between ${min} and ${max}, got ${n}`;
}

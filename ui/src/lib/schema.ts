// Checks a document against the JSON Schema the API publishes for it (openapi.yaml, embedded at
// build time). Covers the keywords the management API's schemas use; anything deeper (what a
// strategy's `config` must hold) is the server's to judge, and its 400 names the field.
import { joinPath } from './json-positions.ts';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  description?: string;
}

export interface SchemaError {
  path: string;
  message: string;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(expected: string, actual: string): boolean {
  return expected === actual || (expected === 'number' && actual === 'integer');
}

export function validate(schema: JsonSchema, value: unknown, path = ''): SchemaError[] {
  const at = path === '' ? 'The document' : path;
  if (schema.anyOf) {
    const tries = schema.anyOf.map((s) => validate(s, value, path));
    if (tries.some((errs) => errs.length === 0)) return [];
    // The branch that got furthest (fewest complaints) explains best what went wrong.
    return tries.sort((a, b) => a.length - b.length)[0] ?? [];
  }
  const actual = typeOf(value);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(t, actual))) {
      return [{ path, message: `${at} must be ${types.join(' or ')}, not ${actual}` }];
    }
  }
  if (schema.const !== undefined && value !== schema.const)
    return [{ path, message: `${at} must be ${JSON.stringify(schema.const)}` }];
  if (schema.enum && !schema.enum.includes(value))
    return [{ path, message: `${at} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}` }];
  const errors: SchemaError[] = [];
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      errors.push({ path, message: schema.minLength === 1 ? `${at} must not be empty` : `${at} is too short` });
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      errors.push({ path, message: `${at} must be at most ${schema.maxLength} characters` });
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum)
      errors.push({ path, message: `${at} must be at least ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum)
      errors.push({ path, message: `${at} must be at most ${schema.maximum}` });
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => {
      errors.push(...validate(schema.items as JsonSchema, item, joinPath(path, i)));
    });
  }
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!(key in obj)) errors.push({ path: joinPath(path, key), message: `${joinPath(path, key)} is required` });
    }
    for (const [key, v] of Object.entries(obj)) {
      const child = schema.properties?.[key];
      if (child) errors.push(...validate(child, v, joinPath(path, key)));
      else if (schema.additionalProperties === false)
        errors.push({ path: joinPath(path, key), message: `Unknown field '${joinPath(path, key)}'` });
      else if (typeof schema.additionalProperties === 'object')
        errors.push(...validate(schema.additionalProperties, v, joinPath(path, key)));
    }
  }
  return errors;
}

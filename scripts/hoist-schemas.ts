// The management API's openapi.yaml writes every schema inline where it is used (the operation list
// builds it that way), so a project, a budget or a guardrail check stands in full in each operation
// that returns it. Generated types would repeat each body as often. This moves every object schema
// that occurs more than once into components.schemas and points each use at it with a $ref, so the
// generated file names the shape once and an operation's types still resolve to the same thing.
import type { OpenAPI3 } from 'openapi-typescript';

/** Smaller repeated objects (an id/name pair) read better inline than as one more name. */
const MIN_CANONICAL_CHARS = 300;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (x: Json | undefined): x is JsonObject => typeof x === 'object' && x !== null && !Array.isArray(x);

/** JSON with keys sorted, so two schemas written in a different key order still count as one. */
function canonical(x: Json): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  if (isObject(x)) {
    const keys = Object.keys(x).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(x[k] as Json)}`).join(',')}}`;
  }
  return JSON.stringify(x);
}

interface Candidate {
  readonly key: string;
  readonly node: JsonObject;
  /** The path of its first occurrence, for naming. */
  readonly path: readonly string[];
  count: number;
}

/** Every object schema below `root` (a $ref is not one), counted by canonical text. */
function countObjects(root: Json, base: readonly string[]): Map<string, Candidate> {
  const seen = new Map<string, Candidate>();
  const walk = (node: Json, path: readonly string[]): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        walk(item, [...path, String(i)]);
      });
      return;
    }
    if (!isObject(node)) return;
    if (node.type === 'object') {
      const key = canonical(node);
      if (key.length >= MIN_CANONICAL_CHARS) {
        const found = seen.get(key);
        if (found) found.count++;
        else seen.set(key, { key, node, path, count: 1 });
      }
    }
    for (const [k, v] of Object.entries(node)) walk(v, [...path, k]);
  };
  walk(root, base);
  return seen;
}

const pascal = (s: string): string =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

/** Property names too generic to name a shape by themselves. */
const GENERIC = new Set(['data', 'items', 'value']);

/**
 * `Project` for an object whose `object` is the constant "project"; else its property's name
 * (`RateLimits`); else, or when that is taken by another shape, its first operation's and property's
 * (`ListAuditLogsData`, `CreateApiKeyResponse`).
 */
function nameFor(c: Candidate, paths: Json, taken: ReadonlySet<string>): string {
  const objectConst = isObject(c.node.properties) ? c.node.properties.object : undefined;
  const at = c.path.lastIndexOf('properties');
  const property = at >= 0 && at + 1 < c.path.length ? c.path[at + 1] : undefined;
  const route = isObject(paths) ? paths[c.path[1]] : undefined;
  const op = isObject(route) ? route[c.path[2]] : undefined;
  const operation = isObject(op) && typeof op.operationId === 'string' ? op.operationId : c.path.join('_');
  const body = c.path.includes('requestBody') ? 'request' : 'response';
  const choices = [
    isObject(objectConst) && typeof objectConst.const === 'string' ? pascal(objectConst.const) : '',
    property && !GENERIC.has(property) ? pascal(property) : '',
    pascal(`${operation}_${property ?? body}`),
  ].filter((n) => n !== '');
  const free = choices.find((n) => !taken.has(n));
  if (free) return free;
  const last = choices[choices.length - 1];
  let name = last;
  for (let n = 2; taken.has(name); n++) name = `${last}${n}`;
  return name;
}

function replaceAll(node: Json, key: string, ref: JsonObject): Json {
  if (Array.isArray(node)) return node.map((item) => replaceAll(item, key, ref));
  if (!isObject(node)) return node;
  if (node.type === 'object' && canonical(node) === key) return ref;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, replaceAll(v, key, ref)]));
}

/** `doc` with each repeated object schema (largest first) moved to components.schemas. */
export function hoistRepeatedSchemas(doc: OpenAPI3): OpenAPI3 {
  let paths = doc.paths as unknown as Json;
  const schemas = { ...(doc.components?.schemas ?? {}) } as unknown as Record<string, Json>;
  for (;;) {
    const counts = countObjects(paths, ['paths']);
    for (const [name, body] of Object.entries(schemas)) {
      for (const [key, c] of countObjects(body, ['components', 'schemas', name])) {
        const found = counts.get(key);
        if (found) found.count += c.count;
        else counts.set(key, c);
      }
    }
    const repeated = [...counts.values()].filter((c) => c.count > 1);
    if (repeated.length === 0) break;
    // The largest first, so a shape nested in it is counted again only where it stands on its own.
    const top = repeated.reduce((a, b) => (b.key.length > a.key.length ? b : a));
    const name = nameFor(top, paths, new Set(Object.keys(schemas)));
    const ref: JsonObject = { $ref: `#/components/schemas/${name}` };
    paths = replaceAll(paths, top.key, ref);
    for (const [n, body] of Object.entries(schemas)) schemas[n] = replaceAll(body, top.key, ref);
    schemas[name] = top.node;
  }
  return {
    ...doc,
    paths: paths as unknown as OpenAPI3['paths'],
    components: { ...doc.components, schemas: schemas as unknown as NonNullable<OpenAPI3['components']>['schemas'] },
  };
}

// Reading a SWITCHYARD_CONFIG file: YAML or JSON (JSON is YAML, so one parser gives line numbers for
// both), validated against the schema as a whole, then every `${env:NAME}` and `${file:/path}` is
// resolved. Any problem is a ConfigFileError naming the file, the line and the field, found before
// anything is applied, so a bad file never half-applies.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { isRecord } from '../util/json.ts';
import { type ConfigFile, ConfigFileSchema } from './schema.ts';

export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${file}${line === null ? '' : `:${line}`}: ${field === '' ? '' : `${field}: `}${problem}`);
    this.name = 'ConfigFileError';
  }
}

type PathPart = string | number;

/** `providers[0].api_key`: the form the error messages and the plan use. */
export function fieldName(path: readonly PathPart[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc === '' ? p : `${acc}.${p}`), '');
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile<ConfigFile>(ConfigFileSchema);

function pathOf(err: ErrorObject): PathPart[] {
  const parts = err.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (err.keyword === 'additionalProperties') parts.push(String(err.params.additionalProperty));
  return parts;
}

function problemOf(err: ErrorObject): string {
  if (err.keyword === 'additionalProperties') return 'unknown field';
  if (err.keyword === 'required') return `missing required field '${String(err.params.missingProperty)}'`;
  if (err.keyword === 'enum' || err.keyword === 'const') return `${err.message ?? 'invalid'}`;
  return err.message ?? 'invalid';
}

/** The deepest error per field is the useful one; union branches repeat it as "must match a schema". */
function firstError(errors: readonly ErrorObject[]): ErrorObject {
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const pool = useful.length > 0 ? useful : errors;
  return pool.reduce((a, b) => (pathOf(b).length > pathOf(a).length ? b : a));
}

const REF = /\$\{(env|file):([^}]*)\}/g;

function resolveString(value: string, at: () => ConfigFileError): string {
  return value.replace(REF, (_m, kind: string, name: string) => {
    if (kind === 'env') {
      const v = process.env[name];
      if (v === undefined || v === '') {
        const e = at();
        throw new ConfigFileError(e.file, e.line, e.field, `environment variable ${name} is not set`);
      }
      return v;
    }
    try {
      return readFileSync(name, 'utf8').trim();
    } catch (err) {
      const e = at();
      const why = err instanceof Error && 'code' in err ? String(err.code) : 'unreadable';
      throw new ConfigFileError(e.file, e.line, e.field, `secret file ${name} cannot be read (${why})`);
    }
  });
}

export interface ParsedConfig {
  file: string;
  config: ConfigFile;
  /** The line of a field, for messages about values the schema accepted but the services refuse. */
  lineOf(path: readonly PathPart[]): number | null;
}

/** Parses text (the file's contents); `file` is only for messages. */
export function parseConfigText(file: string, text: string): ParsedConfig {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const line = e ? counter.linePos(e.pos[0]).line : null;
    throw new ConfigFileError(file, line, '', `not valid YAML or JSON: ${e?.message.split('\n')[0] ?? ''}`);
  }
  const lineOf = (path: readonly PathPart[]): number | null => {
    // The nearest node that exists: a missing field is reported at its parent.
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
      if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
      if (n > 0 && isNode(doc.getIn(path.slice(0, n - 1), true))) {
        const parent = doc.getIn(path.slice(0, n - 1), true);
        const key = path[n - 1];
        if (isMap(parent) && typeof key === 'string') {
          const pair = parent.items.find((p) => isNode(p.key) && (p.key as { value?: unknown }).value === key);
          if (pair && isNode(pair.key) && pair.key.range) return counter.linePos(pair.key.range[0]).line;
        }
      }
    }
    return null;
  };
  const raw: unknown = doc.toJS() ?? {};
  if (!validate(raw)) {
    const err = firstError(validate.errors ?? []);
    const path = pathOf(err);
    throw new ConfigFileError(file, lineOf(path), fieldName(path), problemOf(err));
  }
  const config = resolveRefs(
    raw,
    [],
    (path) => new ConfigFileError(file, lineOf(path), fieldName(path), ''),
  ) as ConfigFile;
  return { file, config, lineOf };
}

function isNode(v: unknown): v is Node {
  return isRecord(v) && 'range' in v && (isMap(v) || isSeq(v) || 'value' in v);
}

function resolveRefs(v: unknown, path: PathPart[], at: (p: PathPart[]) => ConfigFileError): unknown {
  if (typeof v === 'string') return resolveString(v, () => at(path));
  if (Array.isArray(v)) return v.map((x, i) => resolveRefs(x, [...path, i], at));
  if (isRecord(v)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveRefs(x, [...path, k], at)]));
  }
  return v;
}

export function readConfigFile(file: string): ParsedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const why = err instanceof Error && 'code' in err ? String(err.code) : 'unreadable';
    throw new ConfigFileError(file, null, '', `cannot be read (${why})`);
  }
  return parseConfigText(file, text);
}

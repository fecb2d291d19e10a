// Gemini's `parameters` / `responseSchema` accept an OpenAPI 3.0 subset and reject unknown JSON
// Schema keywords (`additionalProperties`, `$schema`, `$ref`, ...), so caller schemas are rewritten
// into that subset: refs inlined, nullable unions folded, const -> enum, unsupported keys dropped.
import type { JsonObject, JsonValue } from '../../ir/types.ts';
import { isRecord } from '../../util/json.ts';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const STRING_FORMATS = new Set(['date-time', 'enum']);
const NUMBER_FORMATS = new Set(['float', 'double', 'int32', 'int64']);
const COPIED_KEYS = [
  'title',
  'description',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minProperties',
  'maxProperties',
  'default',
  'example',
] as const;
/** Self-referencing schemas would inline forever; past this depth they become plain objects. */
const MAX_DEPTH = 12;

function resolveRef(ref: string, root: JsonObject): JsonValue | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: JsonValue | undefined = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isRecord(node) ? node[key] : undefined;
  }
  return node;
}

function convert(schema: JsonValue | undefined, root: JsonObject, depth: number): JsonObject {
  if (!isRecord(schema) || depth > MAX_DEPTH) return { type: 'OBJECT' };
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, root);
    const { $ref: _ignored, ...siblings } = schema;
    return convert(isRecord(target) ? { ...target, ...siblings } : siblings, root, depth + 1);
  }
  const out: JsonObject = {};
  let nullable = schema.nullable === true;
  let type: string | undefined;
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t): t is string => typeof t === 'string');
    nullable ||= types.includes('null');
    type = types.find((t) => t !== 'null');
  } else if (typeof schema.type === 'string') {
    type = schema.type;
  }
  if (type === 'null') {
    type = undefined;
    nullable = true;
  }
  const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray);
  if (alternatives) {
    const branches = alternatives.filter((b) => !(isRecord(b) && b.type === 'null'));
    if (branches.length < alternatives.length) nullable = true;
    if (branches.length === 1) Object.assign(out, convert(branches[0], root, depth + 1));
    else if (branches.length > 1) out.anyOf = branches.map((b) => convert(b, root, depth + 1));
  }
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) mergeInto(out, convert(part, root, depth + 1));
  }
  if (type && TYPES.has(type)) out.type = type.toUpperCase();
  for (const key of COPIED_KEYS) if (schema[key] !== undefined) out[key] = schema[key];
  if (typeof schema.format === 'string') {
    const allowed = type === 'string' ? STRING_FORMATS : NUMBER_FORMATS;
    if (allowed.has(schema.format)) out.format = schema.format;
  }
  const enumValues = schema.const !== undefined ? [schema.const] : schema.enum;
  if (Array.isArray(enumValues) && enumValues.every((v) => typeof v === 'string')) {
    out.enum = enumValues;
    out.type ??= 'STRING';
  }
  if (isRecord(schema.properties)) {
    const props: JsonObject = {};
    for (const [name, sub] of Object.entries(schema.properties)) props[name] = convert(sub, root, depth + 1);
    out.properties = props;
    out.type ??= 'OBJECT';
  }
  if (Array.isArray(schema.required)) {
    out.required = schema.required.filter((r): r is string => typeof r === 'string');
  }
  if (schema.items !== undefined && !Array.isArray(schema.items)) {
    out.items = convert(schema.items, root, depth + 1);
    out.type ??= 'ARRAY';
  }
  if (nullable) out.nullable = true;
  return out;
}

function mergeInto(target: JsonObject, part: JsonObject): void {
  for (const [key, value] of Object.entries(part)) {
    if (key === 'properties' && isRecord(value) && isRecord(target.properties)) {
      target.properties = { ...target.properties, ...value };
    } else if (key === 'required' && Array.isArray(value) && Array.isArray(target.required)) {
      target.required = [...new Set([...target.required, ...value])];
    } else {
      target[key] = value;
    }
  }
}

/** Converts a JSON Schema into Gemini's OpenAPI subset. */
export function toGeminiSchema(schema: JsonObject): JsonObject {
  return convert(schema, schema, 0);
}

/** Gemini rejects OBJECT parameters with no properties; such tools are declared without parameters. */
export function hasProperties(schema: JsonObject): boolean {
  const props = schema.properties;
  return isRecord(props) && Object.keys(props).length > 0;
}

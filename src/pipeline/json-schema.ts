// Validation of JSON answers against the caller's `response_format.json_schema` for upstreams that
// only have a JSON mode (the SPEC's "falls back to JSON mode and validates afterwards").
import { Ajv, type ValidateFunction } from 'ajv';
import type { JsonObject } from '../ir/types.ts';
import { BoundedMemo } from '../util/bounded-memo.ts';

const ajv = new Ajv({ allErrors: false, strict: false });
// Compiling a schema costs far more than validating; callers reuse a handful of schemas.
const compiled = new BoundedMemo<string, ValidateFunction>(256);

export type SchemaCheck = { ok: true } | { ok: false; message: string };

export function checkJsonAgainstSchema(text: string, schema: JsonObject): SchemaCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the upstream answer is not valid JSON' };
  }
  let validate: ValidateFunction;
  try {
    validate = compiled.get(JSON.stringify(schema), () => ajv.compile(schema));
  } catch (err) {
    return { ok: false, message: `response_format.json_schema.schema is not a valid JSON schema: ${String(err)}` };
  }
  if (validate(value)) return { ok: true };
  const first = validate.errors?.[0];
  const where = first?.instancePath || '(root)';
  return {
    ok: false,
    message: `the upstream answer does not match the requested JSON schema: ${where} ${first?.message ?? ''}`.trim(),
  };
}

/** True when the text parses as JSON (for `json_object` answers and cascade acceptance checks). */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

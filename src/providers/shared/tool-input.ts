// Wires that carry tool input as a JSON object (Gemini `args`, Converse `input`).
import type { JsonObject, JsonValue } from '../../ir/types.ts';

/** Tool input must be an object; arguments an upstream left unparsed are wrapped as `{value}`, not lost. */
export function toolInputObject(input: JsonValue): JsonObject {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { value: input };
}

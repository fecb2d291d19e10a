// Tool-call arguments arrive as JSON text on this wire; the IR holds them parsed.
import type { JsonValue } from '../../ir/types.ts';
import { asJson, tryParseJson } from '../../util/json.ts';

/** Parsed once; text that is not JSON is kept verbatim as a string so nothing is lost. */
export function parseToolArguments(text: string | undefined): JsonValue {
  if (text === undefined || text.trim() === '') return {};
  const parsed = tryParseJson(text);
  return parsed.ok ? asJson(parsed.value) : text;
}

// Chat-completions tool definitions and tool_choice -> IR. Legacy `functions` / `function_call` are
// accepted as spellings of the same thing when the modern fields are absent.

import { invalid } from '../../../errors/gateway-error.ts';
import type { JsonObject, Tool, ToolChoice } from '../../../ir/types.ts';
import { isRecord } from '../../../util/json.ts';
import { describe, expectArray, expectObject, expectString, optString } from '../../shared/json.ts';

const EMPTY_SCHEMA: JsonObject = { type: 'object', properties: {} };

function functionDef(fn: Record<string, unknown>, path: string): Tool {
  const tool: Tool = {
    name: expectString(fn.name, `${path}.name`),
    inputSchema: fn.parameters === undefined || fn.parameters === null ? EMPTY_SCHEMA : schema(fn.parameters, path),
  };
  const description = optString(fn.description, `${path}.description`);
  if (description !== undefined) tool.description = description;
  // `strict` has no IR equivalent: schema adherence is the upstream's business.
  return tool;
}

function schema(value: unknown, path: string): JsonObject {
  return expectObject(value, `${path}.parameters`) as JsonObject;
}

export function decodeAlphaTools(body: Record<string, unknown>): Tool[] {
  if (body.tools !== undefined && body.tools !== null) {
    return expectArray(body.tools, 'tools').map((raw, i) => {
      const path = `tools[${i}]`;
      const t = expectObject(raw, path);
      if (t.type !== 'function')
        invalid(`${path}.type`, `only "function" tools are supported, got ${JSON.stringify(t.type)}`);
      return functionDef(expectObject(t.function, `${path}.function`), `${path}.function`);
    });
  }
  if (body.functions !== undefined && body.functions !== null) {
    return expectArray(body.functions, 'functions').map((raw, i) =>
      functionDef(expectObject(raw, `functions[${i}]`), `functions[${i}]`),
    );
  }
  return [];
}

export function decodeAlphaToolChoice(body: Record<string, unknown>): ToolChoice | undefined {
  if (body.tool_choice !== undefined && body.tool_choice !== null) return toolChoice(body.tool_choice, 'tool_choice');
  if (body.function_call !== undefined && body.function_call !== null) {
    const fc = body.function_call;
    if (isRecord(fc)) return { type: 'tool', name: expectString(fc.name, 'function_call.name') };
    return toolChoice(fc, 'function_call');
  }
  return undefined;
}

function toolChoice(value: unknown, path: string): ToolChoice {
  if (typeof value === 'string') {
    if (value === 'auto') return { type: 'auto' };
    if (value === 'none') return { type: 'none' };
    if (value === 'required') return { type: 'any' };
    return invalid(path, `expected "auto", "none", "required" or a function choice, got "${value}"`);
  }
  if (!isRecord(value)) return invalid(path, `expected a string or an object, got ${describe(value)}`);
  if (value.type !== 'function') {
    return invalid(
      `${path}.type`,
      `only {"type":"function","function":{"name":...}} is supported, got ${JSON.stringify(value.type)}`,
    );
  }
  const fn = expectObject(value.function, `${path}.function`);
  return { type: 'tool', name: expectString(fn.name, `${path}.function.name`) };
}

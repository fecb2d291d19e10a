// Messages-API tools and tool_choice -> IR. Server tools (web search, code execution, ...) run inside the
// first-party API and cannot be translated, so they are refused with a clear message.

import { invalid } from '../../../errors/gateway-error.ts';
import type { JsonObject, Tool, ToolChoice } from '../../../ir/types.ts';
import { expectArray, expectObject, expectString, optBoolean, optString } from '../../shared/json.ts';
import { cacheControl } from './decode-blocks.ts';

export function decodeBetaTools(value: unknown): Tool[] {
  if (value === undefined || value === null) return [];
  return expectArray(value, 'tools').map((item, i) => {
    const path = `tools[${i}]`;
    const raw = expectObject(item, path);
    if (raw.type !== undefined && raw.type !== null && raw.type !== 'custom') {
      invalid(
        `${path}.type`,
        `server tool ${JSON.stringify(raw.type)} is not supported; only custom tools with name and input_schema are`,
        'unsupported_tool',
      );
    }
    const tool: Tool = {
      name: expectString(raw.name, `${path}.name`),
      inputSchema: expectObject(raw.input_schema, `${path}.input_schema`) as JsonObject,
    };
    const description = optString(raw.description, `${path}.description`);
    if (description !== undefined) tool.description = description;
    const cc = cacheControl(raw.cache_control, `${path}.cache_control`);
    if (cc) tool.cacheControl = cc;
    return tool;
  });
}

export interface DecodedToolChoice {
  choice?: ToolChoice;
  /** `disable_parallel_tool_use: true` is the inverse of alpha's `parallel_tool_calls: false`. */
  parallelToolCalls?: boolean;
}

export function decodeBetaToolChoice(value: unknown): DecodedToolChoice {
  if (value === undefined || value === null) return {};
  const raw = expectObject(value, 'tool_choice');
  const disable = optBoolean(raw.disable_parallel_tool_use, 'tool_choice.disable_parallel_tool_use');
  const out: DecodedToolChoice = disable === undefined ? {} : { parallelToolCalls: !disable };
  switch (raw.type) {
    case 'auto':
    case 'any':
    case 'none':
      out.choice = { type: raw.type };
      return out;
    case 'tool':
      out.choice = { type: 'tool', name: expectString(raw.name, 'tool_choice.name') };
      return out;
    default:
      return invalid('tool_choice.type', `expected "auto", "any", "tool" or "none", got ${JSON.stringify(raw.type)}`);
  }
}

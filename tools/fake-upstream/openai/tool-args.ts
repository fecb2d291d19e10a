// Deterministic tool calls for `tools` / `tools-2` models: which tools to call and with what arguments.
import { hashHex, isRecord, type Json, str } from './util.ts';

export interface ToolDecl {
  name: string;
  parameters: unknown;
}

export interface FakeToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Default value of a JSON-schema type, so required non-string properties still validate. */
function defaultFor(schema: unknown, text: string): unknown {
  const type = isRecord(schema) ? schema.type : undefined;
  if (isRecord(schema) && Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return text;
  }
}

/**
 * `{"query": <text>}` when the schema allows it; otherwise the text goes into the first string property,
 * and every other required property gets a default of its type.
 */
export function argumentsFor(parameters: unknown, text: string): Json {
  const props = isRecord(parameters) && isRecord(parameters.properties) ? parameters.properties : undefined;
  if (props === undefined || Object.keys(props).length === 0) return { query: text };
  const out: Json = {};
  const target =
    'query' in props
      ? 'query'
      : Object.keys(props).find((k) => {
          const p = props[k];
          return isRecord(p) && (p.type === 'string' || p.type === undefined) && p.enum === undefined;
        });
  if (target !== undefined) out[target] = text;
  const required = isRecord(parameters) && Array.isArray(parameters.required) ? parameters.required : [];
  for (const r of required) {
    if (typeof r === 'string' && !(r in out) && r in props) out[r] = defaultFor(props[r], text);
  }
  return out;
}

/** The tools a scripted model calls: the first `count` declared ones (or the forced one). */
export function pickTools(tools: ToolDecl[], count: number, forced: string | undefined): ToolDecl[] {
  if (forced !== undefined) {
    const t = tools.find((x) => x.name === forced);
    return t ? [t] : [];
  }
  return tools.slice(0, count);
}

export function makeToolCalls(picked: ToolDecl[], text: string, idPrefix: string): FakeToolCall[] {
  return picked.map((t, i) => {
    const args = JSON.stringify(argumentsFor(t.parameters, text));
    return { id: `${idPrefix}${hashHex(`${i}:${t.name}:${args}`)}`, name: t.name, arguments: args };
  });
}

/** Function tools declared in a Chat Completions request (nested `function`). */
export function chatTools(tools: unknown): ToolDecl[] {
  if (!Array.isArray(tools)) return [];
  const out: ToolDecl[] = [];
  for (const t of tools) {
    if (!isRecord(t) || !isRecord(t.function)) continue;
    const name = str(t.function.name);
    if (name !== undefined) out.push({ name, parameters: t.function.parameters });
  }
  return out;
}

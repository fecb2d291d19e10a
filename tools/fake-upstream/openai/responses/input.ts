// Responses API input: validation and the normalised items (with ids) that input_items lists.
import { invalid, type OaiError } from '../errors.ts';
import { isRecord, type Json, newId, str } from '../util.ts';

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);

/** Text of a Responses message `content`: string or input_text/output_text parts. */
export function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const p of content) if (isRecord(p) && typeof p.text === 'string') parts.push(p.text);
  return parts.join('\n');
}

/** Raw input as a list of items; a plain string is one user message. */
export function rawItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/**
 * Checks the items; `knownCalls` holds call ids from the previous response's output, which a
 * `function_call_output` may answer as well as calls earlier in this input.
 */
export function validateInput(items: unknown[], knownCalls: Set<string>): OaiError | undefined {
  const calls = new Set(knownCalls);
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (!isRecord(it))
      return invalid(`Invalid type for 'input[${i}]': expected an object.`, `input[${i}]`, 'invalid_type');
    const type = str(it.type) ?? (it.role !== undefined ? 'message' : undefined);
    if (type === 'message') {
      const role = str(it.role);
      if (role === undefined || !MESSAGE_ROLES.has(role))
        return invalid(
          `Invalid value: '${String(it.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
          `input[${i}].role`,
          'invalid_value',
        );
      if (it.content === undefined)
        return invalid(
          `Missing required parameter: 'input[${i}].content'.`,
          `input[${i}].content`,
          'missing_required_parameter',
        );
    } else if (type === 'function_call') {
      const id = str(it.call_id);
      if (id === undefined || str(it.name) === undefined)
        return invalid(
          `Missing required parameter: 'input[${i}].call_id'.`,
          `input[${i}].call_id`,
          'missing_required_parameter',
        );
      calls.add(id);
    } else if (type === 'function_call_output') {
      const id = str(it.call_id);
      if (id === undefined || !calls.has(id))
        return invalid(`No tool call found for function call output with call_id ${id}.`, 'input');
    } else if (type !== 'reasoning' && type !== 'item_reference') {
      return invalid(`Invalid value: '${String(type)}'. Unknown input item type.`, `input[${i}].type`, 'invalid_value');
    }
  }
  return undefined;
}

/** Items as the API stores them: each gets an id and a status. */
export function normaliseItems(items: unknown[]): Json[] {
  return items.filter(isRecord).map((it) => {
    const type = str(it.type) ?? 'message';
    if (type === 'message') {
      const role = str(it.role) ?? 'user';
      const partType = role === 'assistant' ? 'output_text' : 'input_text';
      const content =
        typeof it.content === 'string'
          ? [{ type: partType, text: it.content }]
          : Array.isArray(it.content)
            ? it.content
            : [];
      return { id: str(it.id) ?? newId('msg_'), type, role, status: 'completed', content };
    }
    const prefix = type === 'function_call' ? 'fc_' : type === 'function_call_output' ? 'fco_' : 'item_';
    return { ...it, id: str(it.id) ?? newId(prefix), type, status: 'completed' };
  });
}

/** Text of the last user message among items. */
export function lastUserItemText(items: Json[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.type === 'message' && it.role === 'user') return itemText(it.content);
  }
  return '';
}

/** Everything `input_tokens` covers: instructions and every item's text, arguments and outputs, joined by newlines. */
export function inputText(instructions: string | undefined, items: Json[]): string {
  const parts: string[] = instructions ? [instructions] : [];
  for (const it of items) {
    if (it.type === 'message') parts.push(itemText(it.content));
    else if (it.type === 'function_call') parts.push(`${str(it.name) ?? ''}${str(it.arguments) ?? ''}`);
    else if (it.type === 'function_call_output')
      parts.push(typeof it.output === 'string' ? it.output : JSON.stringify(it.output));
  }
  return parts.join('\n');
}

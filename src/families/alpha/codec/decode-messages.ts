// The chat-completions message list -> IR system blocks + user/assistant turns. System and developer
// messages are lifted out wherever they occur; tool replies become tool_result blocks in a user turn.

import { invalid } from '../../../errors/gateway-error.ts';
import type { Block, JsonValue, Message, TextBlock, ToolUseBlock } from '../../../ir/types.ts';
import { isRecord } from '../../../util/json.ts';
import { expectArray, expectObject, expectString } from '../../shared/json.ts';
import { decodeAssistantContent, decodeSystemContent, decodeToolContent, decodeUserContent } from './decode-content.ts';

export interface DecodedMessages {
  system: TextBlock[];
  messages: Message[];
}

/** Parses a function-call `arguments` text; an empty text means "no arguments". */
export function parseArguments(raw: unknown, path: string): JsonValue {
  const text = raw === undefined || raw === null ? '' : expectString(raw, path);
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return invalid(path, 'is not valid JSON', 'invalid_tool_arguments');
  }
  if (!isRecord(parsed)) invalid(path, 'must be the JSON text of an object', 'invalid_tool_arguments');
  return parsed as JsonValue;
}

function toolCalls(raw: unknown, path: string): ToolUseBlock[] {
  if (raw === undefined || raw === null) return [];
  return expectArray(raw, path).map((item, j) => {
    const p = `${path}[${j}]`;
    const call = expectObject(item, p);
    if (call.type !== undefined && call.type !== 'function') {
      invalid(`${p}.type`, `only "function" tool calls are supported, got "${String(call.type)}"`);
    }
    const fn = expectObject(call.function, `${p}.function`);
    return {
      type: 'tool_use',
      id: expectString(call.id, `${p}.id`),
      name: expectString(fn.name, `${p}.function.name`),
      input: parseArguments(fn.arguments, `${p}.function.arguments`),
    };
  });
}

class MessageBuilder {
  readonly system: TextBlock[] = [];
  readonly messages: Message[] = [];
  /** The user turn built from tool replies, so that consecutive replies share one turn. */
  private toolTurn: Message | null = null;
  /** Legacy `function_call` ids by function name, answered by later `role: function` messages. */
  private readonly legacyCalls = new Map<string, string>();

  push(role: 'user' | 'assistant', content: Block[]): void {
    this.toolTurn = null;
    this.messages.push({ role, content });
  }

  pushToolResult(toolUseId: string, content: TextBlock[]): void {
    if (!this.toolTurn) {
      this.toolTurn = { role: 'user', content: [] };
      this.messages.push(this.toolTurn);
    }
    this.toolTurn.content.push({ type: 'tool_result', toolUseId, content });
  }

  assistant(msg: Record<string, unknown>, path: string, index: number): void {
    const text = decodeAssistantContent(msg.content, `${path}.content`);
    const calls = toolCalls(msg.tool_calls, `${path}.tool_calls`);
    if (isRecord(msg.function_call)) calls.push(this.legacyCall(msg.function_call, `${path}.function_call`, index));
    // An empty text beside tool calls is how SDKs spell "no text"; keep it only when it is all there is.
    const kept = calls.length > 0 ? text.filter((b) => b.text !== '') : text;
    if (kept.length === 0 && calls.length === 0)
      invalid(`${path}.content`, 'assistant messages need content or tool_calls');
    this.push('assistant', [...kept, ...calls]);
  }

  private legacyCall(fc: Record<string, unknown>, path: string, index: number): ToolUseBlock {
    const name = expectString(fc.name, `${path}.name`);
    const id = `call_legacy_${index}`;
    this.legacyCalls.set(name, id);
    return { type: 'tool_use', id, name, input: parseArguments(fc.arguments, `${path}.arguments`) };
  }

  legacyResult(msg: Record<string, unknown>, path: string): void {
    const name = expectString(msg.name, `${path}.name`);
    const id = this.legacyCalls.get(name);
    if (!id) invalid(`${path}.name`, `no earlier assistant function_call named "${name}"`);
    this.pushToolResult(id, decodeToolContent(msg.content, `${path}.content`));
  }
}

export function decodeAlphaMessages(raw: unknown): DecodedMessages {
  const list = expectArray(raw, 'messages');
  if (list.length === 0) invalid('messages', 'must contain at least one message');
  const b = new MessageBuilder();
  list.forEach((item, i) => {
    const path = `messages[${i}]`;
    const msg = expectObject(item, path);
    const role = expectString(msg.role, `${path}.role`);
    switch (role) {
      case 'system':
      case 'developer':
        b.system.push(...decodeSystemContent(msg.content, `${path}.content`));
        break;
      case 'user':
        b.push('user', decodeUserContent(msg.content, `${path}.content`));
        break;
      case 'assistant':
        b.assistant(msg, path, i);
        break;
      case 'tool':
        b.pushToolResult(
          expectString(msg.tool_call_id, `${path}.tool_call_id`),
          decodeToolContent(msg.content, `${path}.content`),
        );
        break;
      case 'function':
        b.legacyResult(msg, path);
        break;
      default:
        invalid(`${path}.role`, `unknown role "${role}" (expected system, developer, user, assistant or tool)`);
    }
  });
  return { system: b.system, messages: b.messages };
}

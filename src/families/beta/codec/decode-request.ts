// Family beta request decoder: messages-API body -> IR ChatRequest plus the gateway extensions.

import { invalid } from '../../../errors/gateway-error.ts';
import type { ChatRequest, Message, Params, ThinkingConfig } from '../../../ir/types.ts';
import { isRecord } from '../../../util/json.ts';
import {
  describe,
  expectArray,
  expectObject,
  expectString,
  optBoolean,
  optInteger,
  optNumber,
} from '../../shared/json.ts';
import { readSvcExtensions, type SvcExtensions } from '../../shared/svc.ts';
import { decodeBetaContent, decodeBetaSystem } from './decode-blocks.ts';
import { decodeBetaToolChoice, decodeBetaTools } from './decode-tools.ts';

export { stripBetaForPassthrough } from './passthrough.ts';

export interface BetaDecoded {
  ir: ChatRequest;
  svc: SvcExtensions;
}

function decodeMessages(value: unknown): Message[] {
  const list = expectArray(value, 'messages');
  if (list.length === 0) invalid('messages', 'must contain at least one message');
  return list.map((item, i) => {
    const path = `messages[${i}]`;
    const raw = expectObject(item, path);
    const role = expectString(raw.role, `${path}.role`);
    if (role !== 'user' && role !== 'assistant') {
      invalid(
        `${path}.role`,
        `expected "user" or "assistant", got "${role}" (system text goes in the top-level system field)`,
      );
    }
    return { role, content: decodeBetaContent(raw.content, `${path}.content`) };
  });
}

/** `{type: "disabled"}` and `{type: "adaptive"}` leave the IR without a budget: the upstream decides. */
function decodeThinking(value: unknown): ThinkingConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const raw = expectObject(value, 'thinking');
  if (raw.type === 'disabled' || raw.type === 'adaptive') return undefined;
  if (raw.type !== 'enabled')
    invalid('thinking.type', `expected "enabled" or "disabled", got ${JSON.stringify(raw.type)}`);
  const budget = optInteger(raw.budget_tokens, 'thinking.budget_tokens', 1);
  if (budget === undefined) invalid('thinking.budget_tokens', 'is required when thinking is enabled');
  return { type: 'enabled', budgetTokens: budget };
}

function decodeStop(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = expectArray(value, 'stop_sequences').map((s, i) => expectString(s, `stop_sequences[${i}]`));
  return list.length > 0 ? list : undefined;
}

function decodeParams(body: Record<string, unknown>, parallelToolCalls: boolean | undefined, user?: string): Params {
  if (body.max_tokens === undefined || body.max_tokens === null) invalid('max_tokens', 'is required');
  const p: Params = {
    maxTokens: optInteger(body.max_tokens, 'max_tokens', 1),
    temperature: optNumber(body.temperature, 'temperature', 0, 1),
    topP: optNumber(body.top_p, 'top_p', 0, 1),
    topK: optInteger(body.top_k, 'top_k', 0),
    stop: decodeStop(body.stop_sequences),
    thinking: decodeThinking(body.thinking),
    parallelToolCalls,
    user,
  };
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Params;
}

export function decodeBetaMessages(body: unknown): BetaDecoded {
  if (!isRecord(body)) invalid('', `request body must be a JSON object, got ${describe(body)}`);
  if (typeof body.model !== 'string' || body.model === '')
    invalid('model', 'is required and must be a non-empty string');
  const svc = readSvcExtensions(body);
  const userId = svc.metadata?.user_id;
  if (userId !== undefined && userId !== null && typeof userId !== 'string') {
    invalid('metadata.user_id', `expected a string, got ${describe(userId)}`);
  }
  const endUser = typeof userId === 'string' ? userId : undefined;
  // svc:end_user is the explicit extension and wins over the wire's own field.
  if (endUser !== undefined && svc.endUser === undefined) svc.endUser = endUser;
  const tc = decodeBetaToolChoice(body.tool_choice);
  const ir: ChatRequest = {
    model: body.model,
    system: decodeBetaSystem(body.system),
    messages: decodeMessages(body.messages),
    tools: decodeBetaTools(body.tools),
    params: decodeParams(body, tc.parallelToolCalls, endUser),
    stream: optBoolean(body.stream, 'stream') ?? false,
  };
  if (tc.choice) ir.toolChoice = tc.choice;
  return { ir, svc };
}

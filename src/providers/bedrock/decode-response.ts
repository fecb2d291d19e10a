// Converse response -> IR ChatResponse. Converse returns no message id; the gateway makes one.
import type { Block, ChatResponse, JsonValue } from '../../ir/types.ts';
import { asArray, asRecord, asString, isRecord, type UnknownRecord } from '../../util/json.ts';
import { randomId } from '../shared/ids.ts';
import { mapConverseStopReason } from './map-stop-reason.ts';
import { mapConverseUsage } from './map-usage.ts';

/** Converse ids come from upstream; this prefix is for gateway-made response ids. */
export function newMessageId(): string {
  return randomId('msg_bdrk_');
}

function toBlock(block: UnknownRecord): Block | undefined {
  if (typeof block.text === 'string') return block.text ? { type: 'text', text: block.text } : undefined;
  if (isRecord(block.toolUse)) {
    const use = block.toolUse;
    return {
      type: 'tool_use',
      id: asString(use.toolUseId) ?? '',
      name: asString(use.name) ?? '',
      input: (use.input ?? {}) as JsonValue,
    };
  }
  if (isRecord(block.reasoningContent)) {
    const reasoning = block.reasoningContent;
    if (typeof reasoning.redactedContent === 'string')
      return { type: 'redacted_thinking', data: reasoning.redactedContent };
    const text = asRecord(reasoning.reasoningText);
    const thinking: Block = { type: 'thinking', thinking: asString(text.text) ?? '' };
    const signature = asString(text.signature);
    if (signature) thinking.signature = signature;
    return thinking;
  }
  return undefined;
}

export function fromConverseResponse(body: unknown, model: string): ChatResponse {
  const response = asRecord(body);
  const blocks = asArray(asRecord(asRecord(response.output).message).content).filter(isRecord);
  const content = blocks.map(toBlock).filter((b): b is Block => b !== undefined);
  const raw = asString(response.stopReason);
  const result: ChatResponse = {
    id: newMessageId(),
    model,
    content,
    stopReason: mapConverseStopReason(raw),
    stopSequence: null,
    usage: mapConverseUsage(response.usage),
  };
  if (raw) result.rawStopReason = raw;
  return result;
}

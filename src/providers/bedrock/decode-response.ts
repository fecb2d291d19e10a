// Converse response -> IR ChatResponse. Converse returns no message id; the gateway makes one.
import type { Block, ChatResponse, JsonValue } from '../../ir/types.ts';
import { mapConverseStopReason } from './map-stop-reason.ts';
import { mapConverseUsage } from './map-usage.ts';
import { arr, isRec, newMessageId, type Rec, rec, str } from './narrow.ts';

function toBlock(block: Rec): Block | undefined {
  if (typeof block.text === 'string') return block.text ? { type: 'text', text: block.text } : undefined;
  if (isRec(block.toolUse)) {
    const use = block.toolUse;
    return {
      type: 'tool_use',
      id: str(use.toolUseId) ?? '',
      name: str(use.name) ?? '',
      input: (use.input ?? {}) as JsonValue,
    };
  }
  if (isRec(block.reasoningContent)) {
    const reasoning = block.reasoningContent;
    if (typeof reasoning.redactedContent === 'string')
      return { type: 'redacted_thinking', data: reasoning.redactedContent };
    const text = rec(reasoning.reasoningText);
    const thinking: Block = { type: 'thinking', thinking: str(text.text) ?? '' };
    const signature = str(text.signature);
    if (signature) thinking.signature = signature;
    return thinking;
  }
  return undefined;
}

export function fromConverseResponse(body: unknown, model: string): ChatResponse {
  const response = rec(body);
  const blocks = arr(rec(rec(response.output).message).content).filter(isRec);
  const content = blocks.map(toBlock).filter((b): b is Block => b !== undefined);
  const raw = str(response.stopReason);
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

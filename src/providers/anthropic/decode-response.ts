// Anthropic Message -> IR. Server-tool and citation blocks have no IR counterpart and are skipped.

import { messagesStopReason } from '../../ir/messages-stop-reason.ts';
import type { Block, ChatResponse } from '../../ir/types.ts';
import { asArray, asJson, asRecord, asString } from '../../util/json.ts';
import { mapUsage } from './map-usage.ts';

export function fromAnthropicResponse(body: unknown): ChatResponse {
  const b = asRecord(body);
  const content: Block[] = [];
  for (const raw of asArray(b.content)) {
    const block = decodeBlock(asRecord(raw));
    if (block) content.push(block);
  }
  const rawStop = asString(b.stop_reason);
  const res: ChatResponse = {
    id: asString(b.id) ?? '',
    model: asString(b.model) ?? '',
    content,
    stopReason: messagesStopReason(rawStop),
    stopSequence: asString(b.stop_sequence) ?? null,
    usage: mapUsage(b.usage),
  };
  if (rawStop !== undefined) res.rawStopReason = rawStop;
  return res;
}

function decodeBlock(b: Record<string, unknown>): Block | undefined {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: asString(b.text) ?? '' };
    case 'thinking': {
      const block: Block = { type: 'thinking', thinking: asString(b.thinking) ?? '' };
      const signature = asString(b.signature);
      if (signature !== undefined) block.signature = signature;
      return block;
    }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: asString(b.data) ?? '' };
    case 'tool_use':
      return { type: 'tool_use', id: asString(b.id) ?? '', name: asString(b.name) ?? '', input: asJson(b.input ?? {}) };
    default:
      return undefined;
  }
}

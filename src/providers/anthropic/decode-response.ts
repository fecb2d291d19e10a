// Anthropic Message -> IR. Server-tool and citation blocks have no IR counterpart and are skipped.
import type { Block, ChatResponse } from '../../ir/types.ts';
import { arr, asJson, obj, str } from '../openai-compatible/narrow.ts';
import { mapStopReason } from './map-stop-reason.ts';
import { mapUsage } from './map-usage.ts';

export function fromAnthropicResponse(body: unknown): ChatResponse {
  const b = obj(body);
  const content: Block[] = [];
  for (const raw of arr(b.content)) {
    const block = decodeBlock(obj(raw));
    if (block) content.push(block);
  }
  const rawStop = str(b.stop_reason);
  const res: ChatResponse = {
    id: str(b.id) ?? '',
    model: str(b.model) ?? '',
    content,
    stopReason: mapStopReason(rawStop),
    stopSequence: str(b.stop_sequence) ?? null,
    usage: mapUsage(b.usage),
  };
  if (rawStop !== undefined) res.rawStopReason = rawStop;
  return res;
}

function decodeBlock(b: Record<string, unknown>): Block | undefined {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: str(b.text) ?? '' };
    case 'thinking': {
      const block: Block = { type: 'thinking', thinking: str(b.thinking) ?? '' };
      const signature = str(b.signature);
      if (signature !== undefined) block.signature = signature;
      return block;
    }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: str(b.data) ?? '' };
    case 'tool_use':
      return { type: 'tool_use', id: str(b.id) ?? '', name: str(b.name) ?? '', input: asJson(b.input ?? {}) };
    default:
      return undefined;
  }
}

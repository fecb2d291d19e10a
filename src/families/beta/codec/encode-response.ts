// IR ChatResponse -> messages-API message JSON. SPEC: thinking blocks precede text, whichever upstream
// answered; blocks this wire cannot hold in a response (images, tool results) are dropped.
import type { Block, ChatResponse, JsonObject } from '../../../ir/types.ts';
import { betaStopReason } from './stop-reason.ts';
import { betaUsage } from './usage.ts';

export interface BetaEncodeOptions {
  id: string;
  model: string;
}

function encodeBlock(block: Block): JsonObject | null {
  switch (block.type) {
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'text':
      return block.text === '' ? null : { type: 'text', text: block.text };
    case 'tool_use':
      // Unparsable upstream arguments are kept as a raw string by decoders; this wire needs an object.
      return {
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input:
          typeof block.input === 'object' && block.input !== null && !Array.isArray(block.input) ? block.input : {},
      };
    default:
      return null;
  }
}

const isThinking = (b: Block) => b.type === 'thinking' || b.type === 'redacted_thinking';

export function encodeBetaMessage(res: ChatResponse, opts: BetaEncodeOptions): JsonObject {
  const ordered = [...res.content.filter(isThinking), ...res.content.filter((b) => !isThinking(b))];
  const content = ordered.map(encodeBlock).filter((b): b is JsonObject => b !== null);
  return {
    id: opts.id,
    type: 'message',
    role: 'assistant',
    model: opts.model,
    content,
    stop_reason: betaStopReason(res.stopReason, res.rawStopReason),
    stop_sequence: res.stopSequence ?? null,
    usage: betaUsage(res.usage),
  };
}

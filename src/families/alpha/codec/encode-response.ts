// IR ChatResponse -> chat-completions JSON. Thinking blocks have no standard place in this wire and are
// dropped; text blocks are concatenated into the one `content` string.
import type { ChatResponse, JsonObject, JsonValue } from '../../../ir/types.ts';
import { alphaFinishReason } from './finish-reason.ts';
import { alphaUsage } from './usage.ts';

export interface AlphaEncodeOptions {
  id: string;
  model: string;
  created: number;
}

export function toolArgumentsText(input: JsonValue): string {
  // Decoders keep unparsable upstream arguments as a raw string so nothing is lost; send that text as is.
  return typeof input === 'string' ? input : JSON.stringify(input ?? {});
}

export function encodeAlphaChat(res: ChatResponse, opts: AlphaEncodeOptions): JsonObject {
  let text = '';
  const toolCalls: JsonObject[] = [];
  for (const block of res.content) {
    if (block.type === 'text') {
      text += block.text;
    } else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: toolArgumentsText(block.input) },
      });
    }
  }
  const message: JsonObject = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  message.refusal = null;
  return {
    id: opts.id,
    object: 'chat.completion',
    created: opts.created,
    model: opts.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: alphaFinishReason(res.stopReason) }],
    usage: alphaUsage(res.usage),
  };
}

// Chat completions response -> IR. Only the first choice is read (the gateway never asks for n > 1).
import type { Block, ChatResponse } from '../../ir/types.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { mapUsage } from './map-usage.ts';
import { arr, obj, str } from './narrow.ts';
import { parseToolArguments } from './tool-args.ts';

export function fromOpenAIChatResponse(body: unknown): ChatResponse {
  const b = obj(body);
  const choice = obj(arr(b.choices)[0]);
  const msg = obj(choice.message);
  const content: Block[] = [];
  // Non-standard reasoning fields (DeepSeek-style hosts on together/fireworks).
  const reasoning = str(msg.reasoning_content) ?? str(msg.reasoning);
  if (reasoning) content.push({ type: 'thinking', thinking: reasoning });
  const text = messageText(msg.content) ?? str(msg.refusal);
  if (text) content.push({ type: 'text', text });
  for (const raw of arr(msg.tool_calls)) {
    const call = obj(raw);
    const fn = obj(call.function);
    content.push({
      type: 'tool_use',
      id: str(call.id) ?? '',
      name: str(fn.name) ?? '',
      input: parseToolArguments(str(fn.arguments)),
    });
  }
  const rawStop = str(choice.finish_reason);
  const res: ChatResponse = {
    id: str(b.id) ?? '',
    model: str(b.model) ?? '',
    content,
    stopReason: mapFinishReason(
      rawStop,
      content.some((c) => c.type === 'tool_use'),
    ),
    stopSequence: null,
    usage: mapUsage(b.usage) ?? { input: 0, output: 0 },
  };
  if (rawStop !== undefined) res.rawStopReason = rawStop;
  return res;
}

/** `content` is a string on OpenAI; some compatible hosts answer an array of text parts. */
function messageText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map((p) => str(obj(p).text)).filter((t): t is string => t !== undefined);
  return texts.length > 0 ? texts.join('') : undefined;
}

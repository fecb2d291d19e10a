// Chat completions response -> IR. Only the first choice is read (the gateway never asks for n > 1).
import type { Block, ChatResponse } from '../../ir/types.ts';
import { asArray, asRecord, asString } from '../../util/json.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { mapUsage } from './map-usage.ts';
import { parseToolArguments } from './tool-args.ts';

export function fromOpenAIChatResponse(body: unknown): ChatResponse {
  const b = asRecord(body);
  const choice = asRecord(asArray(b.choices)[0]);
  const msg = asRecord(choice.message);
  const content: Block[] = [];
  // Non-standard reasoning fields (DeepSeek-style hosts on together/fireworks).
  const reasoning = asString(msg.reasoning_content) ?? asString(msg.reasoning);
  if (reasoning) content.push({ type: 'thinking', thinking: reasoning });
  const text = messageText(msg.content) ?? asString(msg.refusal);
  if (text) content.push({ type: 'text', text });
  for (const raw of asArray(msg.tool_calls)) {
    const call = asRecord(raw);
    const fn = asRecord(call.function);
    content.push({
      type: 'tool_use',
      id: asString(call.id) ?? '',
      name: asString(fn.name) ?? '',
      input: parseToolArguments(asString(fn.arguments)),
    });
  }
  const rawStop = asString(choice.finish_reason);
  const res: ChatResponse = {
    id: asString(b.id) ?? '',
    model: asString(b.model) ?? '',
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
  const texts = content.map((p) => asString(asRecord(p).text)).filter((t): t is string => t !== undefined);
  return texts.length > 0 ? texts.join('') : undefined;
}

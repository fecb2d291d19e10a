// Gemini GenerateContentResponse -> IR ChatResponse.
import type { Block, ChatResponse, JsonValue } from '../../ir/types.ts';
import { mapGeminiFinishReason } from './map-finish-reason.ts';
import { mapGeminiUsage } from './map-usage.ts';
import { arr, isRec, newToolCallId, type Rec, randomId, rec, str } from './narrow.ts';

export function asJsonObject(v: unknown): JsonValue {
  return isRec(v) ? (v as { [key: string]: JsonValue }) : {};
}

/** First candidate's parts; Gemini answers with one candidate unless candidateCount was raised. */
export function candidateParts(response: Rec): Rec[] {
  const candidate = rec(arr(response.candidates)[0]);
  return arr(rec(candidate.content).parts).filter(isRec);
}

export function finishReasonOf(response: Rec): string | undefined {
  return str(rec(arr(response.candidates)[0]).finishReason);
}

/** A prompt rejected before generation has no candidates, only `promptFeedback.blockReason`. */
export function blockReasonOf(response: Rec): string | undefined {
  return str(rec(response.promptFeedback).blockReason);
}

function appendText(blocks: Block[], kind: 'text' | 'thinking', text: string): void {
  const last = blocks[blocks.length - 1];
  if (kind === 'text' && last?.type === 'text') last.text += text;
  else if (kind === 'thinking' && last?.type === 'thinking' && !last.signature) last.thinking += text;
  else blocks.push(kind === 'text' ? { type: 'text', text } : { type: 'thinking', thinking: text });
}

/**
 * Thought parts become thinking blocks. A signature on a function call is kept as an empty
 * thinking block right before the tool_use, so the encoder can put it back on that call; signatures
 * on plain text parts are optional to echo and are dropped.
 */
export function partsToBlocks(parts: Rec[], newId: () => string = newToolCallId): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    const signature = str(part.thoughtSignature);
    const text = str(part.text);
    if (part.thought === true) {
      appendText(blocks, 'thinking', text ?? '');
      const last = blocks[blocks.length - 1];
      if (signature && last.type === 'thinking') last.signature = signature;
    } else if (isRec(part.functionCall)) {
      const call = part.functionCall;
      if (signature) blocks.push({ type: 'thinking', thinking: '', signature });
      blocks.push({
        type: 'tool_use',
        id: str(call.id) || newId(),
        name: str(call.name) ?? '',
        input: asJsonObject(call.args),
      });
    } else if (text) {
      appendText(blocks, 'text', text);
    }
  }
  return blocks;
}

export function fromGeminiResponse(body: unknown, model: string, newId: () => string = newToolCallId): ChatResponse {
  const response = rec(body);
  const content = partsToBlocks(candidateParts(response), newId);
  const blockReason = blockReasonOf(response);
  const raw = finishReasonOf(response);
  const sawCall = content.some((b) => b.type === 'tool_use');
  const result: ChatResponse = {
    id: str(response.responseId) ?? randomId('gen_'),
    model: str(response.modelVersion) ?? model,
    content,
    stopReason: blockReason && !raw ? 'content_filter' : mapGeminiFinishReason(raw, sawCall),
    stopSequence: null,
    usage: mapGeminiUsage(response.usageMetadata),
  };
  const rawStop = raw ?? blockReason;
  if (rawStop) result.rawStopReason = rawStop;
  return result;
}

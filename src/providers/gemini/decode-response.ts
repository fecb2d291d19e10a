// Gemini GenerateContentResponse -> IR ChatResponse.
import type { Block, ChatResponse } from '../../ir/types.ts';
import { asArray, asJsonObject, asRecord, asString, isRecord, type UnknownRecord } from '../../util/json.ts';
import { newToolCallId, randomId } from '../shared/ids.ts';
import { mapGeminiFinishReason } from './map-finish-reason.ts';
import { mapGeminiUsage } from './map-usage.ts';

/** First candidate's parts; Gemini answers with one candidate unless candidateCount was raised. */
export function candidateParts(response: UnknownRecord): UnknownRecord[] {
  const candidate = asRecord(asArray(response.candidates)[0]);
  return asArray(asRecord(candidate.content).parts).filter(isRecord);
}

export function finishReasonOf(response: UnknownRecord): string | undefined {
  return asString(asRecord(asArray(response.candidates)[0]).finishReason);
}

/** A prompt rejected before generation has no candidates, only `promptFeedback.blockReason`. */
export function blockReasonOf(response: UnknownRecord): string | undefined {
  return asString(asRecord(response.promptFeedback).blockReason);
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
export function partsToBlocks(parts: UnknownRecord[], newId: () => string = newToolCallId): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    const signature = asString(part.thoughtSignature);
    const text = asString(part.text);
    if (part.thought === true) {
      appendText(blocks, 'thinking', text ?? '');
      const last = blocks[blocks.length - 1];
      if (signature && last.type === 'thinking') last.signature = signature;
    } else if (isRecord(part.functionCall)) {
      const call = part.functionCall;
      if (signature) blocks.push({ type: 'thinking', thinking: '', signature });
      blocks.push({
        type: 'tool_use',
        id: asString(call.id) || newId(),
        name: asString(call.name) ?? '',
        input: asJsonObject(call.args),
      });
    } else if (text) {
      appendText(blocks, 'text', text);
    }
  }
  return blocks;
}

export function fromGeminiResponse(body: unknown, model: string, newId: () => string = newToolCallId): ChatResponse {
  const response = asRecord(body);
  const content = partsToBlocks(candidateParts(response), newId);
  const blockReason = blockReasonOf(response);
  const raw = finishReasonOf(response);
  const sawCall = content.some((b) => b.type === 'tool_use');
  const result: ChatResponse = {
    id: asString(response.responseId) ?? randomId('gen_'),
    model: asString(response.modelVersion) ?? model,
    content,
    stopReason: blockReason && !raw ? 'content_filter' : mapGeminiFinishReason(raw, sawCall),
    stopSequence: null,
    usage: mapGeminiUsage(response.usageMetadata),
  };
  const rawStop = raw ?? blockReason;
  if (rawStop) result.rawStopReason = rawStop;
  return result;
}

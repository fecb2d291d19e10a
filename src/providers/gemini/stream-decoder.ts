// Gemini SSE (`alt=sse`: one GenerateContentResponse per `data:` record, no sentinel) -> IR events,
// as a pure state machine over an explicit state object.
import type { StreamEvent, Usage } from '../../ir/types.ts';
import { asJsonObject, asRecord, asString, isRecord, type UnknownRecord } from '../../util/json.ts';
import { newToolCallId, randomId } from '../shared/ids.ts';
import type { StreamDecoder, UpstreamEvent } from '../types.ts';
import { decodeGeminiError } from './decode-error.ts';
import { blockReasonOf, candidateParts, finishReasonOf } from './decode-response.ts';
import { mapGeminiFinishReason } from './map-finish-reason.ts';
import { mapGeminiUsage } from './map-usage.ts';

export interface GeminiStreamState {
  started: boolean;
  nextIndex: number;
  /** The one open text/thinking block; tool calls arrive whole and are opened and closed at once. */
  open?: { kind: 'text' | 'thinking'; index: number; signed: boolean };
  sawFunctionCall: boolean;
  stopped: boolean;
  failed: boolean;
  lastUsage?: string;
}

export function initialGeminiStreamState(): GeminiStreamState {
  return { started: false, nextIndex: 0, sawFunctionCall: false, stopped: false, failed: false };
}

function closeOpen(state: GeminiStreamState, out: StreamEvent[]): void {
  if (!state.open) return;
  out.push({ type: 'block_stop', index: state.open.index });
  state.open = undefined;
}

function openTextLike(state: GeminiStreamState, kind: 'text' | 'thinking', out: StreamEvent[]): number {
  const open = state.open;
  if (open && open.kind === kind && !open.signed) return open.index;
  closeOpen(state, out);
  const index = state.nextIndex++;
  state.open = { kind, index, signed: false };
  out.push({ type: 'block_start', index, block: { type: kind } });
  return index;
}

function onPart(state: GeminiStreamState, part: UnknownRecord, out: StreamEvent[], newId: () => string): void {
  const text = asString(part.text);
  const signature = asString(part.thoughtSignature);
  if (part.thought === true) {
    const index = openTextLike(state, 'thinking', out);
    if (text) out.push({ type: 'thinking_delta', index, text });
    if (signature && state.open) {
      out.push({ type: 'signature_delta', index, signature });
      state.open.signed = true;
    }
    return;
  }
  if (isRecord(part.functionCall)) {
    const call = part.functionCall;
    closeOpen(state, out);
    if (signature) {
      const index = state.nextIndex++;
      out.push({ type: 'block_start', index, block: { type: 'thinking' } });
      out.push({ type: 'signature_delta', index, signature });
      out.push({ type: 'block_stop', index });
    }
    const index = state.nextIndex++;
    const id = asString(call.id) || newId();
    out.push({ type: 'block_start', index, block: { type: 'tool_use', id, name: asString(call.name) ?? '' } });
    out.push({ type: 'tool_args_delta', index, partialJson: JSON.stringify(asJsonObject(call.args)) });
    out.push({ type: 'block_stop', index });
    state.sawFunctionCall = true;
    return;
  }
  if (text) {
    const index = openTextLike(state, 'text', out);
    out.push({ type: 'text_delta', index, text });
  }
}

function streamError(state: GeminiStreamState, status: number, bodyText: string): StreamEvent[] {
  state.failed = true;
  return [{ type: 'error', error: decodeGeminiError(status, bodyText, {}) }];
}

export function stepGeminiStream(
  state: GeminiStreamState,
  event: UpstreamEvent,
  model: string,
  newId: () => string = newToolCallId,
): StreamEvent[] {
  if (state.failed || !event.data.trim()) return [];
  let chunk: UnknownRecord;
  try {
    chunk = asRecord(JSON.parse(event.data));
  } catch {
    return streamError(state, 502, event.data);
  }
  if (isRecord(chunk.error)) return streamError(state, Number(chunk.error.code) || 500, event.data);
  const out: StreamEvent[] = [];
  if (!state.started) {
    state.started = true;
    out.push({
      type: 'start',
      id: asString(chunk.responseId) ?? randomId('gen_'),
      model: asString(chunk.modelVersion) ?? model,
    });
  }
  if (!state.stopped) for (const part of candidateParts(chunk)) onPart(state, part, out, newId);
  if (chunk.usageMetadata !== undefined) {
    const usage: Partial<Usage> = mapGeminiUsage(chunk.usageMetadata);
    const key = JSON.stringify(usage);
    if (key !== state.lastUsage) {
      state.lastUsage = key;
      out.push({ type: 'usage', usage });
    }
  }
  const finish = finishReasonOf(chunk);
  const blocked = blockReasonOf(chunk);
  if (!state.stopped && (finish || blocked)) {
    closeOpen(state, out);
    state.stopped = true;
    out.push({
      type: 'stop',
      stopReason: blocked && !finish ? 'content_filter' : mapGeminiFinishReason(finish, state.sawFunctionCall),
      rawStopReason: finish ?? blocked,
      stopSequence: null,
    });
  }
  return out;
}

/** The upstream closed: flush and emit the stop it never sent (truncated stream). */
export function endGeminiStream(state: GeminiStreamState, model: string): StreamEvent[] {
  if (state.failed || state.stopped) return [];
  const out: StreamEvent[] = [];
  if (!state.started) {
    state.started = true;
    out.push({ type: 'start', id: randomId('gen_'), model });
  }
  closeOpen(state, out);
  state.stopped = true;
  out.push({ type: 'stop', stopReason: state.sawFunctionCall ? 'tool_use' : 'end_turn', stopSequence: null });
  return out;
}

export function newGeminiStreamDecoder(model: string, newId: () => string = newToolCallId): StreamDecoder {
  const state = initialGeminiStreamState();
  return {
    push: (event) => stepGeminiStream(state, event, model, newId),
    end: () => endGeminiStream(state, model),
  };
}

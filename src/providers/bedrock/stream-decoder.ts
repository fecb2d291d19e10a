// ConverseStream frames (already unframed into UpstreamEvents: `event` = :event-type, `data` = JSON)
// -> IR events, as a pure state machine; and InvokeModel streams of Claude, whose frames wrap
// Anthropic stream events (at the end of the file). Usage (`metadata`) arrives after `messageStop`, so the stop
// is held until then (or until the stream ends) to keep usage ahead of stop.
import type { StopReason, StreamEvent } from '../../ir/types.ts';
import { asNumber, asRecord, asString, isRecord, tryParseJson, type UnknownRecord } from '../../util/json.ts';
import {
  type AnthropicStreamState,
  anthropicStreamEnd,
  anthropicStreamStep,
  newAnthropicStreamState,
} from '../anthropic/stream-decoder.ts';
import { randomId } from '../shared/ids.ts';
import type { StreamDecoder, UpstreamEvent } from '../types.ts';
import { bedrockStreamException } from './decode-error.ts';
import { newMessageId } from './decode-response.ts';
import { mapConverseStopReason } from './map-stop-reason.ts';
import { mapConverseUsage } from './map-usage.ts';

type OpenKind = 'text' | 'thinking' | 'tool';

export interface ConverseStreamState {
  started: boolean;
  nextIndex: number;
  /** Upstream `contentBlockIndex` of the open block maps it to our index. */
  open?: { kind: OpenKind; index: number; upstream: number; argsSent: boolean };
  sawToolUse: boolean;
  heldStop?: { stopReason: StopReason; rawStopReason?: string };
  stopped: boolean;
  failed: boolean;
}

export function initialConverseStreamState(): ConverseStreamState {
  return { started: false, nextIndex: 0, sawToolUse: false, stopped: false, failed: false };
}

function ensureStart(state: ConverseStreamState, model: string, out: StreamEvent[]): void {
  if (state.started) return;
  state.started = true;
  out.push({ type: 'start', id: newMessageId(), model });
}

function closeOpen(state: ConverseStreamState, out: StreamEvent[]): void {
  const open = state.open;
  if (!open) return;
  // Concatenated argument fragments must form a JSON object even when the model sent none.
  if (open.kind === 'tool' && !open.argsSent)
    out.push({ type: 'tool_args_delta', index: open.index, partialJson: '{}' });
  out.push({ type: 'block_stop', index: open.index });
  state.open = undefined;
}

function openBlock(
  state: ConverseStreamState,
  kind: OpenKind,
  upstream: number,
  out: StreamEvent[],
  tool?: { id: string; name: string },
): number {
  const open = state.open;
  if (open && open.kind === kind && open.upstream === upstream) return open.index;
  closeOpen(state, out);
  const index = state.nextIndex++;
  state.open = { kind, index, upstream, argsSent: false };
  if (kind === 'tool') {
    state.sawToolUse = true;
    out.push({ type: 'block_start', index, block: { type: 'tool_use', id: tool?.id ?? '', name: tool?.name ?? '' } });
  } else {
    out.push({ type: 'block_start', index, block: { type: kind } });
  }
  return index;
}

function onDelta(state: ConverseStreamState, payload: UnknownRecord, out: StreamEvent[]): void {
  const upstream = asNumber(payload.contentBlockIndex) ?? 0;
  const delta = asRecord(payload.delta);
  if (typeof delta.text === 'string') {
    const index = openBlock(state, 'text', upstream, out);
    if (delta.text) out.push({ type: 'text_delta', index, text: delta.text });
  } else if (isRecord(delta.toolUse)) {
    // Normally announced by contentBlockStart; without it the call still needs an id.
    const index = openBlock(state, 'tool', upstream, out, { id: randomId('tooluse_'), name: '' });
    const fragment = asString(delta.toolUse.input);
    if (fragment && state.open) {
      state.open.argsSent = true;
      out.push({ type: 'tool_args_delta', index, partialJson: fragment });
    }
  } else if (isRecord(delta.reasoningContent)) {
    const reasoning = delta.reasoningContent;
    if (typeof reasoning.redactedContent === 'string') {
      closeOpen(state, out);
      const index = state.nextIndex++;
      out.push({ type: 'block_start', index, block: { type: 'redacted_thinking', data: reasoning.redactedContent } });
      out.push({ type: 'block_stop', index });
      return;
    }
    const index = openBlock(state, 'thinking', upstream, out);
    const text = asString(reasoning.text);
    const signature = asString(reasoning.signature);
    if (text) out.push({ type: 'thinking_delta', index, text });
    if (signature) out.push({ type: 'signature_delta', index, signature });
  }
}

function emitHeldStop(state: ConverseStreamState, out: StreamEvent[]): void {
  if (!state.heldStop || state.stopped) return;
  state.stopped = true;
  out.push({ type: 'stop', ...state.heldStop, stopSequence: null });
}

export function stepConverseStream(state: ConverseStreamState, event: UpstreamEvent, model: string): StreamEvent[] {
  if (state.failed) return [];
  const name = event.event ?? '';
  if (event.messageType === 'exception' || event.messageType === 'error' || /exception$/i.test(name)) {
    state.failed = true;
    return [{ type: 'error', error: bedrockStreamException(name || 'InternalServerException', event.data) }];
  }
  let payload: UnknownRecord;
  try {
    payload = asRecord(JSON.parse(event.data || '{}'));
  } catch {
    state.failed = true;
    return [{ type: 'error', error: bedrockStreamException('InternalServerException', event.data) }];
  }
  const out: StreamEvent[] = [];
  ensureStart(state, model, out);
  if (state.stopped && name !== 'metadata') return out;
  switch (name) {
    case 'contentBlockStart': {
      const toolUse = asRecord(asRecord(payload.start).toolUse);
      const id = asString(toolUse.toolUseId);
      if (id !== undefined) {
        closeOpen(state, out);
        openBlock(state, 'tool', asNumber(payload.contentBlockIndex) ?? 0, out, {
          id,
          name: asString(toolUse.name) ?? '',
        });
      }
      break;
    }
    case 'contentBlockDelta':
      onDelta(state, payload, out);
      break;
    case 'contentBlockStop':
      if (state.open?.upstream === (asNumber(payload.contentBlockIndex) ?? 0)) closeOpen(state, out);
      break;
    case 'messageStop': {
      closeOpen(state, out);
      const raw = asString(payload.stopReason);
      state.heldStop = { stopReason: mapConverseStopReason(raw) };
      if (raw) state.heldStop.rawStopReason = raw;
      break;
    }
    case 'metadata':
      if (payload.usage !== undefined) out.push({ type: 'usage', usage: mapConverseUsage(payload.usage) });
      emitHeldStop(state, out);
      break;
  }
  return out;
}

export function endConverseStream(state: ConverseStreamState, model: string): StreamEvent[] {
  if (state.failed || state.stopped) return [];
  const out: StreamEvent[] = [];
  ensureStart(state, model, out);
  closeOpen(state, out);
  // A stream cut before messageStop still needs exactly one stop.
  state.heldStop ??= { stopReason: state.sawToolUse ? 'tool_use' : 'end_turn' };
  emitHeldStop(state, out);
  return out;
}

export function newConverseStreamDecoder(model: string): StreamDecoder {
  const state = initialConverseStreamState();
  return {
    push: (event) => stepConverseStream(state, event, model),
    end: () => endConverseStream(state, model),
  };
}

/**
 * invoke-with-response-stream: each `chunk` frame carries `{"bytes":"<base64>"}` holding one Anthropic
 * stream event, so the frames are unwrapped and fed to the Anthropic state machine.
 */
export function invokeAnthropicStep(s: AnthropicStreamState, ev: UpstreamEvent): StreamEvent[] {
  if (s.done) return [];
  if (ev.messageType === 'exception' || (ev.event !== undefined && /exception$/i.test(ev.event))) {
    s.done = true;
    return [{ type: 'error', error: bedrockStreamException(ev.event, ev.data) }];
  }
  const parsed = tryParseJson(ev.data);
  const frame = parsed.ok ? asRecord(parsed.value) : {};
  const bytes = asString(frame.bytes);
  if (bytes === undefined) return [];
  const inner = Buffer.from(bytes, 'base64').toString('utf8');
  return anthropicStreamStep(s, { data: inner });
}

export function newInvokeAnthropicStreamDecoder(): StreamDecoder {
  const state = newAnthropicStreamState();
  return { push: (ev) => invokeAnthropicStep(state, ev), end: () => anthropicStreamEnd(state) };
}

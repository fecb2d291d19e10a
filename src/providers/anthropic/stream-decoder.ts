// Anthropic stream events -> IR stream events, as a state machine over an explicit state object.
// Upstream block indexes are remapped because skipped block types (server tools) leave gaps.

import { messagesStopReason } from '../../ir/messages-stop-reason.ts';
import type { StreamEvent } from '../../ir/types.ts';
import { asNumber, asRecord, asString, isRecord, tryParseJson } from '../../util/json.ts';
import type { StreamDecoder, UpstreamEvent } from '../types.ts';
import { decodeAnthropicStreamError } from './decode-error.ts';
import { mapPartialUsage } from './map-usage.ts';

interface BlockState {
  index: number;
  kind: 'text' | 'thinking' | 'redacted_thinking' | 'tool_use';
  sentArgs: boolean;
  /** Input announced whole in `content_block_start`, used when no `input_json_delta` follows. */
  startInput?: string;
}

export interface AnthropicStreamState {
  started: boolean;
  /** A stop or an error was emitted: nothing else may follow. */
  done: boolean;
  nextIndex: number;
  open: BlockState | null;
  /** Upstream block index -> our block; null for block types the IR does not carry. */
  blocks: Map<number, BlockState | null>;
  stopReason: string | null;
  stopSequence: string | null;
}

export function newAnthropicStreamState(): AnthropicStreamState {
  return {
    started: false,
    done: false,
    nextIndex: 0,
    open: null,
    blocks: new Map(),
    stopReason: null,
    stopSequence: null,
  };
}

export function anthropicStreamStep(s: AnthropicStreamState, ev: UpstreamEvent): StreamEvent[] {
  if (s.done) return [];
  const parsed = tryParseJson(ev.data);
  const data = parsed.ok ? asRecord(parsed.value) : {};
  const type = asString(data.type) ?? ev.event;
  switch (type) {
    case 'error':
      s.done = true;
      return [{ type: 'error', error: decodeAnthropicStreamError(data, ev.data) }];
    case 'message_start':
      return s.started ? [] : startFrom(s, asRecord(data.message));
    case 'content_block_start':
      return [...ensureStarted(s), ...blockStart(s, asNumber(data.index) ?? -1, asRecord(data.content_block))];
    case 'content_block_delta':
      return blockDelta(s, asNumber(data.index) ?? -1, asRecord(data.delta));
    case 'content_block_stop':
      return s.open && s.blocks.get(asNumber(data.index) ?? -1) === s.open ? closeOpen(s) : [];
    case 'message_delta': {
      const delta = asRecord(data.delta);
      s.stopReason = asString(delta.stop_reason) ?? s.stopReason;
      s.stopSequence = asString(delta.stop_sequence) ?? s.stopSequence;
      const usage = mapPartialUsage(data.usage);
      return [...ensureStarted(s), ...(Object.keys(usage).length > 0 ? [{ type: 'usage' as const, usage }] : [])];
    }
    case 'message_stop':
      return finish(s);
    default:
      // ping and event types this decoder does not know yet
      return [];
  }
}

export function anthropicStreamEnd(s: AnthropicStreamState): StreamEvent[] {
  return s.done ? [] : finish(s);
}

function startFrom(s: AnthropicStreamState, message: Record<string, unknown>): StreamEvent[] {
  s.started = true;
  const start: StreamEvent = { type: 'start', id: asString(message.id) ?? '', model: asString(message.model) ?? '' };
  const usage = mapPartialUsage(message.usage);
  if (Object.keys(usage).length > 0) start.usage = usage;
  return [start];
}

function ensureStarted(s: AnthropicStreamState): StreamEvent[] {
  return s.started ? [] : startFrom(s, {});
}

function blockStart(s: AnthropicStreamState, upstreamIndex: number, cb: Record<string, unknown>): StreamEvent[] {
  const kind = cb.type;
  if (kind !== 'text' && kind !== 'thinking' && kind !== 'redacted_thinking' && kind !== 'tool_use') {
    s.blocks.set(upstreamIndex, null);
    return [];
  }
  const out = closeOpen(s);
  const block: BlockState = { index: s.nextIndex++, kind, sentArgs: false };
  s.blocks.set(upstreamIndex, block);
  s.open = block;
  const index = block.index;
  if (kind === 'text') {
    out.push({ type: 'block_start', index, block: { type: 'text' } });
    const text = asString(cb.text);
    if (text) out.push({ type: 'text_delta', index, text });
  } else if (kind === 'thinking') {
    out.push({ type: 'block_start', index, block: { type: 'thinking' } });
    const text = asString(cb.thinking);
    if (text) out.push({ type: 'thinking_delta', index, text });
    const signature = asString(cb.signature);
    if (signature) out.push({ type: 'signature_delta', index, signature });
  } else if (kind === 'redacted_thinking') {
    out.push({ type: 'block_start', index, block: { type: 'redacted_thinking', data: asString(cb.data) ?? '' } });
  } else {
    out.push({
      type: 'block_start',
      index,
      block: { type: 'tool_use', id: asString(cb.id) ?? '', name: asString(cb.name) ?? '' },
    });
    if (isRecord(cb.input) && Object.keys(cb.input).length > 0) block.startInput = JSON.stringify(cb.input);
  }
  return out;
}

function blockDelta(s: AnthropicStreamState, upstreamIndex: number, delta: Record<string, unknown>): StreamEvent[] {
  const block = s.blocks.get(upstreamIndex);
  // Deltas for skipped blocks, or for a block that is no longer open, have nowhere to go.
  if (!block || block !== s.open) return [];
  const index = block.index;
  switch (delta.type) {
    case 'text_delta': {
      const text = asString(delta.text);
      return text ? [{ type: 'text_delta', index, text }] : [];
    }
    case 'thinking_delta': {
      const text = asString(delta.thinking);
      return text ? [{ type: 'thinking_delta', index, text }] : [];
    }
    case 'signature_delta': {
      const signature = asString(delta.signature);
      return signature ? [{ type: 'signature_delta', index, signature }] : [];
    }
    case 'input_json_delta': {
      const partialJson = asString(delta.partial_json);
      if (!partialJson) return [];
      block.sentArgs = true;
      return [{ type: 'tool_args_delta', index, partialJson }];
    }
    default:
      return [];
  }
}

function closeOpen(s: AnthropicStreamState): StreamEvent[] {
  const open = s.open;
  if (!open) return [];
  s.open = null;
  const out: StreamEvent[] = [];
  // The concatenated fragments must form a JSON object even when the upstream streamed none.
  if (open.kind === 'tool_use' && !open.sentArgs) {
    out.push({ type: 'tool_args_delta', index: open.index, partialJson: open.startInput ?? '{}' });
  }
  out.push({ type: 'block_stop', index: open.index });
  return out;
}

function finish(s: AnthropicStreamState): StreamEvent[] {
  const out = [...ensureStarted(s), ...closeOpen(s)];
  s.done = true;
  const stop: StreamEvent = {
    type: 'stop',
    stopReason: messagesStopReason(s.stopReason),
    stopSequence: s.stopSequence,
  };
  if (s.stopReason !== null) stop.rawStopReason = s.stopReason;
  out.push(stop);
  return out;
}

export function newAnthropicStreamDecoder(): StreamDecoder {
  const state = newAnthropicStreamState();
  return { push: (ev) => anthropicStreamStep(state, ev), end: () => anthropicStreamEnd(state) };
}

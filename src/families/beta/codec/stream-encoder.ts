// IR stream events -> messages-API SSE events, as a state machine over an explicit state object
// (no I/O, no timers), the same shape as the vendor stream decoders.
// Output indexes are assigned here, not copied from the IR, because empty text blocks are not announced
// (a text block is opened on its first non-empty delta) and indexes must stay contiguous.
import { fromUpstream } from '../../../errors/gateway-error.ts';
import type { BlockStart, JsonObject, StopReason, StreamEvent, Usage } from '../../../ir/types.ts';
import type { StreamEncoder } from '../../shared/codec.ts';
import { sseEvent } from '../../shared/sse.ts';
import { betaErrorBody } from './error-body.ts';
import { betaStopReason } from './stop-reason.ts';
import { betaUsage } from './usage.ts';

export interface BetaStreamOptions {
  id: string;
  model: string;
}

interface OpenBlock {
  irIndex: number;
  kind: BlockStart['type'];
  /** Output index, or null while a text block has not been announced yet. */
  index: number | null;
}

export interface BetaStreamState {
  readonly opts: BetaStreamOptions;
  /** message_start was written. */
  started: boolean;
  /** After an error record, or once ended, nothing else may be written. */
  closed: boolean;
  open: OpenBlock | null;
  /** The output index the next announced block gets. */
  nextIndex: number;
  usage: Partial<Usage>;
  /** Held until the end: alpha-wire upstreams report usage after the finish chunk. */
  stop: { reason: StopReason; raw?: string; sequence: string | null } | null;
}

export function newBetaStreamState(opts: BetaStreamOptions): BetaStreamState {
  return { opts, started: false, closed: false, open: null, nextIndex: 0, usage: {}, stop: null };
}

export function betaStreamStep(s: BetaStreamState, ev: StreamEvent): string[] {
  if (s.closed) return [];
  if (ev.type === 'error') {
    s.closed = true;
    return [sseEvent('error', betaErrorBody(fromUpstream(ev.error)))];
  }
  if (ev.type === 'start' && ev.usage) s.usage = { ...s.usage, ...ev.usage };
  const out = ensureStarted(s);
  switch (ev.type) {
    case 'block_start':
      out.push(...closeOpen(s));
      s.open = { irIndex: ev.index, kind: ev.block.type, index: null };
      if (ev.block.type !== 'text') out.push(announce(s, s.open, startBody(ev.block)));
      break;
    case 'text_delta':
      if (ev.text !== '') out.push(...delta(s, ev.index, 'text', { type: 'text_delta', text: ev.text }));
      break;
    case 'thinking_delta':
      out.push(...delta(s, ev.index, 'thinking', { type: 'thinking_delta', thinking: ev.text }));
      break;
    case 'signature_delta':
      out.push(...delta(s, ev.index, 'thinking', { type: 'signature_delta', signature: ev.signature }));
      break;
    case 'tool_args_delta':
      if (ev.partialJson !== '') {
        out.push(...delta(s, ev.index, 'tool_use', { type: 'input_json_delta', partial_json: ev.partialJson }));
      }
      break;
    case 'block_stop':
      if (s.open?.irIndex === ev.index) out.push(...closeOpen(s));
      break;
    case 'usage':
      s.usage = { ...s.usage, ...ev.usage };
      break;
    case 'stop':
      out.push(...closeOpen(s));
      s.stop = { reason: ev.stopReason, raw: ev.rawStopReason, sequence: ev.stopSequence ?? null };
      break;
    default:
      break;
  }
  return out;
}

export function betaStreamEnd(s: BetaStreamState): string[] {
  if (s.closed) return [];
  s.closed = true;
  const out = [...ensureStarted(s), ...closeOpen(s)];
  const stop = s.stop ?? { reason: 'end_turn', sequence: null };
  out.push(
    sseEvent('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: betaStopReason(stop.reason, stop.raw), stop_sequence: stop.sequence },
      usage: betaUsage(s.usage),
    }),
  );
  out.push(sseEvent('message_stop', { type: 'message_stop' }));
  return out;
}

function ensureStarted(s: BetaStreamState): string[] {
  if (s.started) return [];
  s.started = true;
  const message = {
    id: s.opts.id,
    type: 'message',
    role: 'assistant',
    model: s.opts.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: betaUsage(s.usage),
  };
  return [sseEvent('message_start', { type: 'message_start', message })];
}

/** A delta for a block that was never started (a lenient upstream decoder) opens one implicitly. */
function delta(s: BetaStreamState, irIndex: number, kind: BlockStart['type'], body: JsonObject): string[] {
  const out: string[] = [];
  if (s.open?.irIndex !== irIndex) {
    out.push(...closeOpen(s));
    s.open = { irIndex, kind, index: null };
    if (kind !== 'text') out.push(announce(s, s.open, startBody(implicitStart(kind))));
  }
  const block = s.open as OpenBlock;
  if (block.index === null) out.push(announce(s, block, { type: 'text', text: '' }));
  out.push(sseEvent('content_block_delta', { type: 'content_block_delta', index: block.index, delta: body }));
  return out;
}

function announce(s: BetaStreamState, block: OpenBlock, contentBlock: JsonObject): string {
  block.index = s.nextIndex++;
  return sseEvent('content_block_start', {
    type: 'content_block_start',
    index: block.index,
    content_block: contentBlock,
  });
}

function closeOpen(s: BetaStreamState): string[] {
  const block = s.open;
  s.open = null;
  if (!block || block.index === null) return [];
  return [sseEvent('content_block_stop', { type: 'content_block_stop', index: block.index })];
}

function startBody(block: BlockStart): JsonObject {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
  }
}

function implicitStart(kind: BlockStart['type']): BlockStart {
  if (kind === 'tool_use') return { type: 'tool_use', id: 'toolu_unknown', name: 'unknown' };
  if (kind === 'redacted_thinking') return { type: 'redacted_thinking', data: '' };
  return { type: kind };
}

export function newBetaStreamEncoder(opts: BetaStreamOptions): StreamEncoder {
  const state = newBetaStreamState(opts);
  return {
    push: (ev) => betaStreamStep(state, ev),
    end: () => betaStreamEnd(state),
  };
}

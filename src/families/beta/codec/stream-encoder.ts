// IR stream events -> messages-API SSE events, as a pure state machine (no I/O, no timers).
// Output indexes are assigned here, not copied from the IR, because empty text blocks are not announced
// (a text block is opened on its first non-empty delta) and indexes must stay contiguous.
import { fromUpstream } from '../../../errors/gateway-error.ts';
import type { BlockStart, JsonObject, StopReason, StreamEvent, Usage } from '../../../ir/types.ts';
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

export class BetaStreamEncoder {
  private started = false;
  private closed = false;
  private open: OpenBlock | null = null;
  private nextIndex = 0;
  private usage: Partial<Usage> = {};
  private stop: { reason: StopReason; raw?: string; sequence: string | null } | null = null;

  constructor(private readonly opts: BetaStreamOptions) {}

  push(ev: StreamEvent): string[] {
    if (this.closed) return [];
    if (ev.type === 'error') {
      this.closed = true;
      return [sseEvent('error', betaErrorBody(fromUpstream(ev.error)))];
    }
    if (ev.type === 'start' && ev.usage) this.usage = { ...this.usage, ...ev.usage };
    const out = this.ensureStarted();
    switch (ev.type) {
      case 'block_start':
        out.push(...this.closeOpen());
        this.open = { irIndex: ev.index, kind: ev.block.type, index: null };
        if (ev.block.type !== 'text') out.push(this.announce(this.open, startBody(ev.block)));
        break;
      case 'text_delta':
        if (ev.text !== '') out.push(...this.delta(ev.index, 'text', { type: 'text_delta', text: ev.text }));
        break;
      case 'thinking_delta':
        out.push(...this.delta(ev.index, 'thinking', { type: 'thinking_delta', thinking: ev.text }));
        break;
      case 'signature_delta':
        out.push(...this.delta(ev.index, 'thinking', { type: 'signature_delta', signature: ev.signature }));
        break;
      case 'tool_args_delta':
        if (ev.partialJson !== '') {
          out.push(...this.delta(ev.index, 'tool_use', { type: 'input_json_delta', partial_json: ev.partialJson }));
        }
        break;
      case 'block_stop':
        if (this.open?.irIndex === ev.index) out.push(...this.closeOpen());
        break;
      case 'usage':
        this.usage = { ...this.usage, ...ev.usage };
        break;
      case 'stop':
        // Held until end(): alpha-wire upstreams report usage after the finish chunk.
        out.push(...this.closeOpen());
        this.stop = { reason: ev.stopReason, raw: ev.rawStopReason, sequence: ev.stopSequence ?? null };
        break;
      default:
        break;
    }
    return out;
  }

  end(): string[] {
    if (this.closed) return [];
    this.closed = true;
    const out = [...this.ensureStarted(), ...this.closeOpen()];
    const stop = this.stop ?? { reason: 'end_turn', sequence: null };
    out.push(
      sseEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: betaStopReason(stop.reason, stop.raw), stop_sequence: stop.sequence },
        usage: betaUsage(this.usage),
      }),
    );
    out.push(sseEvent('message_stop', { type: 'message_stop' }));
    return out;
  }

  private ensureStarted(): string[] {
    if (this.started) return [];
    this.started = true;
    const message = {
      id: this.opts.id,
      type: 'message',
      role: 'assistant',
      model: this.opts.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: betaUsage(this.usage),
    };
    return [sseEvent('message_start', { type: 'message_start', message })];
  }

  /** A delta for a block that was never started (a lenient upstream decoder) opens one implicitly. */
  private delta(irIndex: number, kind: BlockStart['type'], delta: JsonObject): string[] {
    const out: string[] = [];
    if (this.open?.irIndex !== irIndex) {
      out.push(...this.closeOpen());
      this.open = { irIndex, kind, index: null };
      if (kind !== 'text') out.push(this.announce(this.open, startBody(implicitStart(kind))));
    }
    const block = this.open as OpenBlock;
    if (block.index === null) out.push(this.announce(block, { type: 'text', text: '' }));
    out.push(sseEvent('content_block_delta', { type: 'content_block_delta', index: block.index, delta }));
    return out;
  }

  private announce(block: OpenBlock, contentBlock: JsonObject): string {
    block.index = this.nextIndex++;
    return sseEvent('content_block_start', {
      type: 'content_block_start',
      index: block.index,
      content_block: contentBlock,
    });
  }

  private closeOpen(): string[] {
    const block = this.open;
    this.open = null;
    if (!block || block.index === null) return [];
    return [sseEvent('content_block_stop', { type: 'content_block_stop', index: block.index })];
  }
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

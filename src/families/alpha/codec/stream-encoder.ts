// IR stream events -> chat-completions SSE chunks, as a pure state machine (no I/O, no timers).
// SPEC: tool calls are surfaced complete on the chunk that carries finish_reason, so argument fragments
// are accumulated here instead of being relayed.
import { fromUpstream } from '../../../errors/gateway-error.ts';
import type { JsonObject, StreamEvent, Usage } from '../../../ir/types.ts';
import { SSE_DONE, sseData } from '../../shared/sse.ts';
import { alphaErrorBody } from './error-body.ts';
import { alphaFinishReason } from './finish-reason.ts';
import { alphaUsage } from './usage.ts';

export { PassthroughToolAccumulator } from './passthrough-tools.ts';

export interface AlphaStreamOptions {
  id: string;
  model: string;
  created: number;
  includeUsage: boolean;
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

export class AlphaStreamEncoder {
  private started = false;
  private finished = false;
  /** After an error record nothing else may be written, not even [DONE]. */
  private closed = false;
  private readonly calls: PendingCall[] = [];
  /** IR block index -> position in `calls`. */
  private readonly callByBlock = new Map<number, number>();
  private usage: Partial<Usage> = {};

  constructor(private readonly opts: AlphaStreamOptions) {}

  push(ev: StreamEvent): string[] {
    if (this.closed) return [];
    if (ev.type === 'error') {
      this.closed = true;
      return [sseData(alphaErrorBody(fromUpstream(ev.error)))];
    }
    const out = this.ensureStarted();
    switch (ev.type) {
      case 'start':
      case 'usage':
        if (ev.usage) this.usage = { ...this.usage, ...ev.usage };
        break;
      case 'block_start':
        if (ev.block.type === 'tool_use') {
          this.callByBlock.set(ev.index, this.calls.length);
          this.calls.push({ id: ev.block.id, name: ev.block.name, args: '' });
        }
        break;
      case 'text_delta':
        if (ev.text !== '' && !this.finished) out.push(this.chunk({ content: ev.text }, null));
        break;
      case 'tool_args_delta': {
        const at = this.callByBlock.get(ev.index);
        if (at !== undefined) this.calls[at].args += ev.partialJson;
        break;
      }
      case 'stop':
        if (!this.finished) out.push(this.finishChunk(alphaFinishReason(ev.stopReason)));
        break;
      default:
        // Thinking, signatures and block stops have no chat-completions representation.
        break;
    }
    return out;
  }

  end(): string[] {
    if (this.closed) return [];
    this.closed = true;
    const out = this.ensureStarted();
    // An upstream that closed without a stop still gets a well-formed ending.
    if (!this.finished) out.push(this.finishChunk(this.calls.length > 0 ? 'tool_calls' : 'stop'));
    if (this.opts.includeUsage) out.push(this.frame([], alphaUsage(this.usage)));
    out.push(SSE_DONE);
    return out;
  }

  private ensureStarted(): string[] {
    if (this.started) return [];
    this.started = true;
    return [this.chunk({ role: 'assistant', content: '' }, null)];
  }

  private finishChunk(reason: string): string {
    this.finished = true;
    const delta: JsonObject = {};
    if (this.calls.length > 0) {
      delta.tool_calls = this.calls.map((c, index) => ({
        index,
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.args === '' ? '{}' : c.args },
      }));
    }
    return this.chunk(delta, reason);
  }

  private chunk(delta: JsonObject, finishReason: string | null): string {
    return this.frame([{ index: 0, delta, logprobs: null, finish_reason: finishReason }], null);
  }

  private frame(choices: JsonObject[], usage: JsonObject | null): string {
    const chunk: JsonObject = {
      id: this.opts.id,
      object: 'chat.completion.chunk',
      created: this.opts.created,
      model: this.opts.model,
      choices,
    };
    // The real API sends `usage: null` on every chunk only when include_usage was requested.
    if (this.opts.includeUsage) chunk.usage = usage;
    return sseData(chunk);
  }
}

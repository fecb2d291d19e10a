// IR stream events -> chat-completions SSE chunks, as a state machine over an explicit state object
// (no I/O, no timers), the same shape as the vendor stream decoders.
// SPEC: tool calls are surfaced complete on the chunk that carries finish_reason, so argument fragments
// are accumulated here instead of being relayed.
import { fromUpstream } from '../../../errors/gateway-error.ts';
import type { JsonObject, StreamEvent, Usage } from '../../../ir/types.ts';
import type { StreamEncoder } from '../../shared/codec.ts';
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

export interface AlphaStreamState {
  readonly opts: AlphaStreamOptions;
  /** The role chunk was written. */
  started: boolean;
  /** The finish chunk was written: no more content may follow it. */
  finished: boolean;
  /** After an error record, or once ended, nothing else may be written, not even [DONE]. */
  closed: boolean;
  readonly calls: PendingCall[];
  /** IR block index -> position in `calls`. */
  readonly callByBlock: Map<number, number>;
  usage: Partial<Usage>;
}

export function newAlphaStreamState(opts: AlphaStreamOptions): AlphaStreamState {
  return { opts, started: false, finished: false, closed: false, calls: [], callByBlock: new Map(), usage: {} };
}

export function alphaStreamStep(s: AlphaStreamState, ev: StreamEvent): string[] {
  if (s.closed) return [];
  if (ev.type === 'error') {
    s.closed = true;
    return [sseData(alphaErrorBody(fromUpstream(ev.error)))];
  }
  const out = ensureStarted(s);
  switch (ev.type) {
    case 'start':
    case 'usage':
      if (ev.usage) s.usage = { ...s.usage, ...ev.usage };
      break;
    case 'block_start':
      if (ev.block.type === 'tool_use') {
        s.callByBlock.set(ev.index, s.calls.length);
        s.calls.push({ id: ev.block.id, name: ev.block.name, args: '' });
      }
      break;
    case 'text_delta':
      if (ev.text !== '' && !s.finished) out.push(chunk(s.opts, { content: ev.text }, null));
      break;
    case 'tool_args_delta': {
      const at = s.callByBlock.get(ev.index);
      if (at !== undefined) s.calls[at].args += ev.partialJson;
      break;
    }
    case 'stop':
      if (!s.finished) out.push(finishChunk(s, alphaFinishReason(ev.stopReason)));
      break;
    default:
      // Thinking, signatures and block stops have no chat-completions representation.
      break;
  }
  return out;
}

export function alphaStreamEnd(s: AlphaStreamState): string[] {
  if (s.closed) return [];
  s.closed = true;
  const out = ensureStarted(s);
  // An upstream that closed without a stop still gets a well-formed ending.
  if (!s.finished) out.push(finishChunk(s, s.calls.length > 0 ? 'tool_calls' : 'stop'));
  if (s.opts.includeUsage) out.push(frame(s.opts, [], alphaUsage(s.usage)));
  out.push(SSE_DONE);
  return out;
}

function ensureStarted(s: AlphaStreamState): string[] {
  if (s.started) return [];
  s.started = true;
  return [chunk(s.opts, { role: 'assistant', content: '' }, null)];
}

function finishChunk(s: AlphaStreamState, reason: string): string {
  s.finished = true;
  const delta: JsonObject = {};
  if (s.calls.length > 0) {
    delta.tool_calls = s.calls.map((c, index) => ({
      index,
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.args === '' ? '{}' : c.args },
    }));
  }
  return chunk(s.opts, delta, reason);
}

function chunk(opts: AlphaStreamOptions, delta: JsonObject, finishReason: string | null): string {
  return frame(opts, [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], null);
}

function frame(opts: AlphaStreamOptions, choices: JsonObject[], usage: JsonObject | null): string {
  const chunk: JsonObject = {
    id: opts.id,
    object: 'chat.completion.chunk',
    created: opts.created,
    model: opts.model,
    choices,
  };
  // The real API sends `usage: null` on every chunk only when include_usage was requested.
  if (opts.includeUsage) chunk.usage = usage;
  return sseData(chunk);
}

export function newAlphaStreamEncoder(opts: AlphaStreamOptions): StreamEncoder {
  const state = newAlphaStreamState(opts);
  return {
    push: (ev) => alphaStreamStep(state, ev),
    end: () => alphaStreamEnd(state),
  };
}

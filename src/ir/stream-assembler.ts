// IR stream events -> the complete answer they describe (the inverse of responseEvents), so a cache can
// store a streamed answer. Runs on every event of a cached stream, so each push is O(1) string appends;
// all parsing waits for result().
import type { Block, BlockStart, ChatResponse, JsonValue, StopReason, StreamEvent, Usage } from './types.ts';

type Builder =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string | undefined }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; json: string };

interface Stop {
  stopReason: StopReason;
  rawStopReason?: string;
  stopSequence?: string | null;
}

export class ResponseAssembler {
  private id = '';
  private model = '';
  private readonly usage: Partial<Usage> = {};
  /** In block_start order, which is index order for a well-formed stream. */
  private readonly blocks: Builder[] = [];
  private readonly byIndex = new Map<number, Builder>();
  private stop: Stop | undefined;
  /** An error, or a stream this class cannot fold faithfully: the answer must not be reused. */
  private spoiled = false;

  push(ev: StreamEvent): void {
    if (this.spoiled) return;
    switch (ev.type) {
      case 'start':
        this.id = ev.id;
        this.model = ev.model;
        if (ev.usage) this.mergeUsage(ev.usage);
        break;
      case 'block_start':
        this.startBlock(ev.index, ev.block);
        break;
      case 'text_delta': {
        const b = this.blockFor(ev.index, 'text');
        if (b?.type === 'text') b.text += ev.text;
        break;
      }
      case 'thinking_delta': {
        const b = this.blockFor(ev.index, 'thinking');
        if (b?.type === 'thinking') b.thinking += ev.text;
        break;
      }
      case 'signature_delta': {
        const b = this.blockFor(ev.index, 'thinking');
        if (b?.type === 'thinking') b.signature = (b.signature ?? '') + ev.signature;
        break;
      }
      case 'tool_args_delta': {
        const b = this.blockFor(ev.index, 'tool_use');
        if (b?.type === 'tool_use') b.json += ev.partialJson;
        break;
      }
      case 'usage':
        this.mergeUsage(ev.usage);
        break;
      case 'stop':
        this.stop = { stopReason: ev.stopReason };
        if (ev.rawStopReason !== undefined) this.stop.rawStopReason = ev.rawStopReason;
        if (ev.stopSequence !== undefined) this.stop.stopSequence = ev.stopSequence;
        break;
      case 'error':
        this.spoiled = true;
        break;
      default:
        // block_stop: nothing to close, since blocks are complete once the stream stops.
        break;
    }
  }

  /** The whole answer, or undefined when the stream did not complete cleanly and must not be stored. */
  result(): ChatResponse | undefined {
    if (this.spoiled || !this.stop) return undefined;
    const content: Block[] = [];
    for (const b of this.blocks) {
      const block = finish(b);
      if (!block) return undefined;
      content.push(block);
    }
    const usage: Usage = { input: this.usage.input ?? 0, output: this.usage.output ?? 0 };
    if (this.usage.cacheRead !== undefined) usage.cacheRead = this.usage.cacheRead;
    if (this.usage.cacheWrite !== undefined) usage.cacheWrite = this.usage.cacheWrite;
    return { id: this.id, model: this.model, content, ...this.stop, usage };
  }

  private startBlock(index: number, start: BlockStart): void {
    if (this.byIndex.has(index)) {
      this.spoiled = true;
      return;
    }
    let b: Builder;
    switch (start.type) {
      case 'text':
        b = { type: 'text', text: '' };
        break;
      case 'thinking':
        b = { type: 'thinking', thinking: '', signature: undefined };
        break;
      case 'redacted_thinking':
        b = { type: 'redacted_thinking', data: start.data };
        break;
      case 'tool_use':
        b = { type: 'tool_use', id: start.id, name: start.name, json: '' };
        break;
    }
    this.add(index, b);
  }

  /**
   * The block a delta belongs to. Lenient decoders may send text or thinking without a block_start (the
   * stream encoders accept that too), so those open implicitly; a tool call without its header, or a
   * delta of the wrong kind, cannot be rebuilt and spoils the answer.
   */
  private blockFor(index: number, kind: Builder['type']): Builder | undefined {
    const found = this.byIndex.get(index);
    if (found) {
      if (found.type === kind) return found;
    } else if (kind === 'text') {
      return this.add(index, { type: 'text', text: '' });
    } else if (kind === 'thinking') {
      return this.add(index, { type: 'thinking', thinking: '', signature: undefined });
    }
    this.spoiled = true;
    return undefined;
  }

  private add(index: number, b: Builder): Builder {
    this.byIndex.set(index, b);
    this.blocks.push(b);
    return b;
  }

  /** Field by field, skipping absent values, so a later partial report never erases an earlier count. */
  private mergeUsage(u: Partial<Usage>): void {
    if (u.input !== undefined) this.usage.input = u.input;
    if (u.output !== undefined) this.usage.output = u.output;
    if (u.cacheRead !== undefined) this.usage.cacheRead = u.cacheRead;
    if (u.cacheWrite !== undefined) this.usage.cacheWrite = u.cacheWrite;
  }
}

function finish(b: Builder): Block | undefined {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'thinking':
      return b.signature === undefined
        ? { type: 'thinking', thinking: b.thinking }
        : { type: 'thinking', thinking: b.thinking, signature: b.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data };
    case 'tool_use': {
      const input = parseInput(b.json);
      return input === undefined ? undefined : { type: 'tool_use', id: b.id, name: b.name, input };
    }
  }
}

/** Decoders guarantee an object, but an upstream that streamed no fragments leaves an empty string. */
function parseInput(json: string): JsonValue | undefined {
  if (json === '') return {};
  // Parsed here rather than with util/json: util already depends on ir, and ir must not close that loop.
  try {
    const value: unknown = JSON.parse(json);
    // JSON.parse only ever yields JSON values.
    return value as JsonValue;
  } catch {
    return undefined;
  }
}
